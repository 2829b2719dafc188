/** POST /invitations/{invitation_id}/accept (also under /api): the invitee. */
import { invitationPathInput } from '../../../shared/invitations.ts';
import { membershipOutput } from '../../../shared/fields.ts';
import { acceptInvitation } from './invitations.service.ts';
import { callerProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';

// Who may accept depends on the invitation: the data layer checks it under the organization's lock.
export const acceptInvitationProcedure = callerProcedure
  .meta(
    restEndpoint({
      method: 'POST',
      path: '/invitations/{invitation_id}/accept',
      tags: ['invitations'],
      summary: 'Accept an invitation to the caller: the membership is made at once (the invitee)',
      errors: [...BODY_ERRORS, 403, 404, 409, 410],
      successStatus: 201,
    }),
  )
  .input(invitationPathInput)
  .output(membershipOutput)
  .mutation(({ ctx, input }) => acceptInvitation(ctx.db, ctx.caller, input.invitation_id));
