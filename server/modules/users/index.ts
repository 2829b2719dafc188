/** The caller's user record: POST, GET and PUT /users (also under /api). */
import { createUserInput, successOutput, updateUserInput, userOutput } from '../../shared/schemas.ts';
import { createUser, getUser, updateUser } from '../data/users.ts';
import { router } from '../trpc/init.ts';
import { authenticatedProcedure, creatorProcedure } from '../trpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from './rest-meta.ts';

const tags = ['users'];

export const usersRouter = router({
  create: creatorProcedure
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
    }),

  me: authenticatedProcedure
    .meta(
      restEndpoint({ method: 'GET', path: '/users', tags, summary: "Read the caller's user record", errors: [404] }),
    )
    .output(userOutput)
    .query(({ ctx }) => getUser(ctx.db, ctx.caller)),

  update: authenticatedProcedure
    .meta(
      restEndpoint({
        method: 'PUT',
        path: '/users',
        tags,
        summary: "Update the caller's first and/or last name",
        errors: [...BODY_ERRORS, 404],
      }),
    )
    .input(updateUserInput)
    .output(successOutput)
    .mutation(async ({ ctx, input }) => {
      await updateUser(ctx.db, ctx.caller, input);
      return { success: true as const, message: 'User updated' };
    }),
});
