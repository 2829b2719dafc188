/** DELETE /users (also under /api): the caller's record and what is theirs everywhere (behaviour §15). */
import { z } from 'zod';
import { successOutput } from '../../../shared/fields.ts';
import { callerProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { deleteAccount } from './account.service.ts';

export const deleteAccountProcedure = callerProcedure
  .meta(
    restEndpoint({
      method: 'DELETE',
      path: '/users',
      tags: ['users'],
      summary: "Delete the caller's user record with their memberships, invitations and join requests",
      errors: [...BODY_ERRORS, 403, 404, 409],
    }),
  )
  // No input of its own; an empty object rather than none, so that trpc-to-openapi states the
  // Idempotency-Key header it takes (it leaves out the headers of a procedure without input).
  .input(z.object({}).optional())
  .output(successOutput)
  .mutation(async ({ ctx }) => {
    await deleteAccount(ctx.db, ctx.caller);
    return { success: true as const, message: 'User deleted' };
  });
