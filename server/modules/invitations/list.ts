/** GET /organizations/{organization_id}/invitations (also under /api): owner or admin. */
import { invitationOutput } from '../../../shared/lifecycle.ts';
import { listOrganizationInvitations } from '../../data/invitations.ts';
import { pathOrganizationManagerProcedure } from '../../trpc/procedures.ts';
import { listOutput } from '../lists.ts';
import { restEndpoint } from '../rest-meta.ts';

export const listInvitationsProcedure = pathOrganizationManagerProcedure
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
  .query(({ ctx }) => listOrganizationInvitations(ctx.db, ctx.actor.organizationId));
