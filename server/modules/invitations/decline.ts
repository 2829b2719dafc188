/** POST /invitations/{invitation_id}/decline (also under /api): the invitee. */
import { invitationPathInput } from '../../../shared/invitations.ts';
import { messageOutput } from '../../../shared/fields.ts';
import { declineInvitation } from './invitations.service.ts';
import { callerProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';

// Who may decline depends on the invitation: the data layer checks it under the organization's lock.
export const declineInvitationProcedure = callerProcedure
  .meta(
    restEndpoint({
      method: 'POST',
      path: '/invitations/{invitation_id}/decline',
      tags: ['invitations'],
      summary: 'Decline an invitation to the caller (the invitee)',
      errors: [...BODY_ERRORS, 403, 404, 410],
    }),
  )
  .input(invitationPathInput)
  .output(messageOutput)
  .mutation(({ ctx, input }) => declineInvitation(ctx.db, ctx.caller, input.invitation_id));
