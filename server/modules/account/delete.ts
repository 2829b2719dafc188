/** DELETE /users (also under /api): the caller's record and what is theirs everywhere (behaviour §15). */
import { successOutput } from '../../../shared/fields.ts';
import { callerProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { deleteAccount } from './account.service.ts';

export const deleteAccountProcedure = callerProcedure
  .meta(
    restEndpoint({
      method: 'DELETE',
      path: '/users',
      tags: ['users'],
      summary: "Delete the caller's user record with their memberships, invitations and join requests",
      errors: [403, 404, 409],
    }),
  )
  .output(successOutput)
  .mutation(async ({ ctx }) => {
    await deleteAccount(ctx.db, ctx.caller);
    return { success: true as const, message: 'User deleted' };
  });
