/**
 * Organizations: GET and POST /organizations, GET, PUT and DELETE /organizations/{organization_id},
 * POST /organizations/{organization_id}/transfer-ownership (all also under /api), one procedure a file.
 */
import { router } from '../../platform/rpc/init.ts';
import { createOrganizationProcedure } from './create.ts';
import { getOrganizationProcedure } from './get.ts';
import { listOrganizationsProcedure, organizationsPageProcedure } from './list.ts';
import { removeOrganizationProcedure } from './remove.ts';
import { transferOwnershipProcedure } from './transfer-ownership.ts';
import { updateOrganizationProcedure } from './update.ts';

export const organizationsRouter = router({
  list: listOrganizationsProcedure,
  page: organizationsPageProcedure,
  create: createOrganizationProcedure,
  get: getOrganizationProcedure,
  update: updateOrganizationProcedure,
  remove: removeOrganizationProcedure,
  transferOwnership: transferOwnershipProcedure,
});
