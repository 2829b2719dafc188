/**
 * Permissions: GET /permissions (the catalogue), GET /organizations/{organization_id}/permissions
 * and POST .../permissions/check (all also under /api), one procedure a file.
 */
import { router } from '../../platform/rpc/init.ts';
import { permissionCatalogueProcedure } from './catalogue.ts';
import { checkPermissionsProcedure } from './check.ts';
import { myPermissionsProcedure } from './mine.ts';

export const permissionsRouter = router({
  catalogue: permissionCatalogueProcedure,
  mine: myPermissionsProcedure,
  check: checkPermissionsProcedure,
});
