/** A person's own data (behaviour §15): GET /users/export and DELETE /users, one procedure a file. */
import { router } from '../../platform/rpc/init.ts';
import { deleteAccountProcedure } from './delete.ts';
import { exportAccountProcedure } from './export.ts';

export const accountRouter = router({
  export: exportAccountProcedure,
  delete: deleteAccountProcedure,
});
