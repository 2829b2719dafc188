/** DELETE /organizations/{organization_id}/api-keys/{key_id} (also under /api): refused from now on. */
import { apiKeyPathInput } from '../../../shared/api-keys.ts';
import { messageOutput } from '../../../shared/fields.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { revokeApiKey } from './api-keys.service.ts';
import { keyPath, tags } from './rest.ts';

export const revokeApiKeyProcedure = organizationProcedure({ from: 'path', may: 'api_keys:manage' })
  .meta(
    restEndpoint({
      method: 'DELETE',
      path: keyPath,
      tags,
      summary: 'Revoke an API key: every instance refuses it from this answer on (api_keys:manage)',
      errors: [...BODY_ERRORS, 403, 404],
    }),
  )
  .input(apiKeyPathInput)
  .output(messageOutput)
  .mutation(({ ctx, input }) => revokeApiKey(ctx.org, input.key_id));
