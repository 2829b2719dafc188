/**
 * Organizations: GET and POST /organizations, GET, PUT and DELETE /organizations/{organization_id},
 * GET /organizations/slug/{slug}, PATCH .../metadata, PUT .../limits, POST .../transfer-ownership
 * (all also under /api), one procedure a file.
 */
import { router } from '../../platform/rpc/init.ts';
import { createOrganizationProcedure } from './create.ts';
import { getOrganizationProcedure } from './get.ts';
import { getOrganizationBySlugProcedure } from './get-by-slug.ts';
import { listOrganizationsProcedure, organizationsPageProcedure } from './list.ts';
import { removeOrganizationProcedure } from './remove.ts';
import { setLimitsProcedure } from './set-limits.ts';
import { transferOwnershipProcedure } from './transfer-ownership.ts';
import { updateOrganizationProcedure } from './update.ts';
import { updateOrganizationMetadataProcedure } from './update-metadata.ts';

export const organizationsRouter = router({
  list: listOrganizationsProcedure,
  page: organizationsPageProcedure,
  create: createOrganizationProcedure,
  get: getOrganizationProcedure,
  getBySlug: getOrganizationBySlugProcedure,
  update: updateOrganizationProcedure,
  updateMetadata: updateOrganizationMetadataProcedure,
  setLimits: setLimitsProcedure,
  remove: removeOrganizationProcedure,
  transferOwnership: transferOwnershipProcedure,
});
