/** POST /users (also under /api): the caller's user record, its id the token's sub. */
import { successOutput } from '../../../shared/fields.ts';
import { createUserInput } from '../../../shared/users.ts';
import { creatorProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { createUser } from './users.service.ts';

const tags = ['users'];

export const createUserProcedure = creatorProcedure
  .meta(
    restEndpoint({
      method: 'POST',
      path: '/users',
      tags,
      summary: "Create the caller's user record (id from the token's sub)",
      errors: [...BODY_ERRORS, 403, 409],
      successStatus: 201,
    }),
  )
  .input(createUserInput)
  .output(successOutput)
  .mutation(async ({ ctx, input }) => {
    await createUser(ctx.db, ctx.caller, input);
    return { success: true as const, message: 'User created' };
  });
