/** DELETE /organizations/{organization_id} (also under /api): owners only. */
import { messageOutput } from '../../../shared/fields.ts';
import { deleteOrganization } from './organizations.service.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';

export const removeOrganizationProcedure = organizationProcedure({ from: 'path', may: 'organization:delete' })
  .meta(
    restEndpoint({
      method: 'DELETE',
      path: '/organizations/{organization_id}',
      tags: ['organizations'],
      summary: 'Delete an organization with its memberships, invitations, roles, teams and webhook endpoints (owner)',
      errors: [...BODY_ERRORS, 403],
    }),
  )
  .output(messageOutput)
  .mutation(({ ctx }) => deleteOrganization(ctx.org));
