/** GET /organizations/{organization_id}/invitations (also under /api): owner or admin. */
import { invitationOutput } from '../../../shared/invitations.ts';
import { listOrganizationInvitations } from './invitations.service.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { listOutput } from '../../platform/rpc/lists.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';

export const listInvitationsProcedure = organizationProcedure({ from: 'path', may: 'invitations:read' })
  .meta(
    restEndpoint({
      method: 'GET',
      path: '/organizations/{organization_id}/invitations',
      tags: ['invitations'],
      summary: "List the organization's pending, unexpired invitations, oldest first (owner or admin)",
      errors: [400, 403],
    }),
  )
  .output(listOutput(invitationOutput))
  .query(({ ctx }) => listOrganizationInvitations(ctx.org));
