/** POST /organizations/{organization_id}/api-keys (also under /api): a key and its secret, shown once. */
import { createApiKeyInput, createdApiKeyOutput } from '../../../shared/api-keys.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { createApiKey } from './api-keys.service.ts';
import { path, tags } from './rest.ts';

export const createApiKeyProcedure = organizationProcedure({ from: 'path', may: 'api_keys:manage' })
  .meta(
    restEndpoint({
      method: 'POST',
      path,
      tags,
      summary: 'Create an API key with a role the caller may give; its secret is in this answer only (api_keys:manage)',
      errors: [...BODY_ERRORS, 403, 409],
      successStatus: 201,
    }),
  )
  .input(createApiKeyInput)
  .output(createdApiKeyOutput)
  .mutation(({ ctx, input }) => createApiKey(ctx.org, input));
