/** The caller's user record: POST, GET and PUT /users (also under /api). */
import { createUserInput, successOutput, updateUserInput, userOutput } from '../../shared/schemas.ts';
import { createUser, getUser, updateUser } from '../data/users.ts';
import { router } from '../trpc/init.ts';
import { authenticatedProcedure, creatorProcedure } from '../trpc/procedures.ts';

export const usersRouter = router({
  create: creatorProcedure
    .meta({
      openapi: { method: 'POST', path: '/users', tags: ['users'], summary: "Create the caller's user record" },
      successStatus: 201,
    })
    .input(createUserInput)
    .output(successOutput)
    .mutation(async ({ ctx, input }) => {
      await createUser(ctx.em, ctx.caller, input);
      return { success: true as const, message: 'User created' };
    }),

  me: authenticatedProcedure
    .meta({ openapi: { method: 'GET', path: '/users', tags: ['users'], summary: "Read the caller's user record" } })
    .output(userOutput)
    .query(({ ctx }) => getUser(ctx.em, ctx.caller)),

  update: authenticatedProcedure
    .meta({ openapi: { method: 'PUT', path: '/users', tags: ['users'], summary: "Update the caller's names" } })
    .input(updateUserInput)
    .output(successOutput)
    .mutation(async ({ ctx, input }) => {
      await updateUser(ctx.em, ctx.caller, input);
      return { success: true as const, message: 'User updated' };
    }),
});
