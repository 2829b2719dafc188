/** GET /invitations (also under /api): the caller's own pending invitations. */
import { invitationOutput } from '../../../shared/invitations.ts';
import { offerDomainInvitation } from '../joining/joining.service.ts';
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
      summary:
        "List the pending, unexpired invitations to the caller's e-mail address, oldest first, with the one a verified domain of the caller's verified e-mail makes (automatic_invitation)",
      errors: [403, 404],
    }),
  )
  .output(listOutput(invitationOutput))
  .query(async ({ ctx }) => {
    // A domain with the enrollment automatic_invitation makes its invitation when it is first looked for (behaviour §17).
    await offerDomainInvitation(ctx.db, ctx.caller, ctx.settings.INVITATION_TTL_HOURS);
    return listMyInvitations(ctx.db, ctx.caller);
  });
