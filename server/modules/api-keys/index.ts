/**
 * An organization's API keys (behaviour §16): /organizations/{organization_id}/api-keys (also under
 * /api), one procedure a file.
 */
import { router } from '../../platform/rpc/init.ts';
import { createApiKeyProcedure } from './create.ts';
import { getApiKeyProcedure } from './get.ts';
import { apiKeysPageProcedure, listApiKeysProcedure } from './list.ts';
import { revokeApiKeyProcedure } from './revoke.ts';

export const apiKeysRouter = router({
  create: createApiKeyProcedure,
  list: listApiKeysProcedure,
  page: apiKeysPageProcedure,
  get: getApiKeyProcedure,
  revoke: revokeApiKeyProcedure,
});
