/** POST /organizations/{organization_id}/invitations (also under /api): owner or admin. */
import { createInvitationInput, invitationOutput } from '../../../shared/invitations.ts';
import { createInvitation } from './invitations.service.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';

export const createInvitationProcedure = organizationProcedure({ from: 'path', may: 'invitations:create' })
  .meta(
    restEndpoint({
      method: 'POST',
      path: '/organizations/{organization_id}/invitations',
      tags: ['invitations'],
      summary: 'Invite an e-mail address with a role (owner or admin; an owner invitation: owner)',
      errors: [...BODY_ERRORS, 403, 409],
      successStatus: 201,
    }),
  )
  .input(createInvitationInput)
  .output(invitationOutput)
  .mutation(({ ctx, input }) => createInvitation(ctx.org, input, ctx.settings.INVITATION_TTL_HOURS));
