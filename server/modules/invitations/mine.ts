/** GET /invitations (also under /api): the caller's own pending invitations. */
import { invitationOutput } from '../../../shared/lifecycle.ts';
import { listMyInvitations } from '../../data/invitations.ts';
import { authenticatedProcedure } from '../../trpc/procedures.ts';
import { listOutput } from '../lists.ts';
import { restEndpoint } from '../rest-meta.ts';

export const myInvitationsProcedure = authenticatedProcedure
  .meta(
    restEndpoint({
      method: 'GET',
      path: '/invitations',
      tags: ['invitations'],
      summary: "List the pending, unexpired invitations to the caller's e-mail address, oldest first",
      errors: [404],
    }),
  )
  .output(listOutput(invitationOutput))
  .query(({ ctx }) => listMyInvitations(ctx.db, ctx.caller));
