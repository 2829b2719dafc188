/**
 * Invitations (behaviour §8), one procedure a file. The organization's side: create, list and revoke
 * under /organizations/{organization_id}/invitations. The invitee's side: their own list at
 * /invitations, accept and decline. All also under /api.
 */
import { router } from '../../platform/rpc/init.ts';
import { acceptInvitationProcedure } from './accept.ts';
import { createInvitationProcedure } from './create.ts';
import { declineInvitationProcedure } from './decline.ts';
import { listInvitationsProcedure } from './list.ts';
import { myInvitationsProcedure } from './mine.ts';
import { revokeInvitationProcedure } from './revoke.ts';

export const invitationsRouter = router({
  create: createInvitationProcedure,
  list: listInvitationsProcedure,
  revoke: revokeInvitationProcedure,
  mine: myInvitationsProcedure,
  accept: acceptInvitationProcedure,
  decline: declineInvitationProcedure,
});
