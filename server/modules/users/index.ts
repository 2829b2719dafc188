/** The caller's user record: POST, GET and PUT /users (also under /api), one procedure a file. */
import { router } from '../../platform/rpc/init.ts';
import { createUserProcedure } from './create.ts';
import { getMeProcedure } from './me.ts';
import { updateUserProcedure } from './update.ts';

export const usersRouter = router({
  create: createUserProcedure,
  me: getMeProcedure,
  update: updateUserProcedure,
});
