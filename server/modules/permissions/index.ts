/**
 * Permissions: GET /organizations/{organization_id}/permissions and POST .../permissions/check (both
 * also under /api), one procedure a file.
 */
import { router } from '../../platform/rpc/init.ts';
import { checkPermissionsProcedure } from './check.ts';
import { myPermissionsProcedure } from './mine.ts';

export const permissionsRouter = router({
  mine: myPermissionsProcedure,
  check: checkPermissionsProcedure,
});
