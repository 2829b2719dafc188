/** GET /organizations/{organization_id}/api-keys/{key_id} (also under /api): one key, never its secret. */
import { apiKeyOutput, apiKeyPathInput } from '../../../shared/api-keys.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { getApiKey } from './api-keys.service.ts';
import { keyPath, tags } from './rest.ts';

export const getApiKeyProcedure = organizationProcedure({ from: 'path', may: 'api_keys:manage' })
  .meta(
    restEndpoint({
      method: 'GET',
      path: keyPath,
      tags,
      summary: 'One API key of the organization, with its last use (api_keys:manage)',
      errors: [400, 403, 404],
    }),
  )
  .input(apiKeyPathInput)
  .output(apiKeyOutput)
  .query(({ ctx, input }) => getApiKey(ctx.org, input.key_id));
