/**
 * An organization's roles (behaviour §11): /organizations/{organization_id}/roles (also under /api),
 * one procedure a file.
 */
import { router } from '../../platform/rpc/init.ts';
import { createRoleProcedure } from './create.ts';
import { listRolesProcedure } from './list.ts';
import { removeRoleProcedure } from './remove.ts';
import { updateRoleProcedure } from './update.ts';

export const rolesRouter = router({
  list: listRolesProcedure,
  create: createRoleProcedure,
  update: updateRoleProcedure,
  remove: removeRoleProcedure,
});
