/** GET /invitations (also under /api): the caller's own pending invitations. */
import { invitationOutput } from '../../../shared/invitations.ts';
import { listMyInvitations } from './invitations.service.ts';
import { callerProcedure } from '../../platform/rpc/procedures.ts';
import { listOutput } from '../../platform/rpc/lists.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';

export const myInvitationsProcedure = callerProcedure
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
