/** DELETE /organizations/{organization_id} (also under /api): owners only. */
import { messageOutput } from '../../../shared/schemas.ts';
import { deleteOrganization } from '../../data/organizations.ts';
import { pathOrganizationOwnerProcedure } from '../../trpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../rest-meta.ts';

export const removeOrganizationProcedure = pathOrganizationOwnerProcedure
  .meta(
    restEndpoint({
      method: 'DELETE',
      path: '/organizations/{organization_id}',
      tags: ['organizations'],
      summary: 'Delete an organization with its memberships and invitations (owner)',
      errors: [...BODY_ERRORS, 403],
    }),
  )
  .output(messageOutput)
  .mutation(({ ctx }) => deleteOrganization(ctx.db, ctx.actor));
