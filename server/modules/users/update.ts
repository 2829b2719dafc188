/** PUT /users (also under /api): the caller's first and/or last name. */
import { successOutput } from '../../../shared/fields.ts';
import { updateUserInput } from '../../../shared/users.ts';
import { callerProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { updateUser } from './users.service.ts';

const tags = ['users'];

export const updateUserProcedure = callerProcedure
  .meta(
    restEndpoint({
      method: 'PUT',
      path: '/users',
      tags,
      summary: "Update the caller's first and/or last name",
      errors: [...BODY_ERRORS, 403, 404],
    }),
  )
  .input(updateUserInput)
  .output(successOutput)
  .mutation(async ({ ctx, input }) => {
    await updateUser(ctx.db, ctx.caller, input);
    return { success: true as const, message: 'User updated' };
  });
