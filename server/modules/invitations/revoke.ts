/** DELETE /organizations/{organization_id}/invitations/{invitation_id} (also under /api): owner or admin. */
import { invitationPathInput } from '../../../shared/invitations.ts';
import { messageOutput } from '../../../shared/fields.ts';
import { revokeInvitation } from './invitations.service.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';

export const revokeInvitationProcedure = organizationProcedure({ from: 'path', may: 'invitations:revoke' })
  .meta(
    restEndpoint({
      method: 'DELETE',
      path: '/organizations/{organization_id}/invitations/{invitation_id}',
      tags: ['invitations'],
      summary: 'Revoke a pending invitation (owner or admin; an owner invitation: owner)',
      errors: [...BODY_ERRORS, 403, 404, 410],
    }),
  )
  .input(invitationPathInput)
  .output(messageOutput)
  .mutation(({ ctx, input }) => revokeInvitation(ctx.org, input.invitation_id));
