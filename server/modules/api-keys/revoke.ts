/**
 * DELETE /organizations/{organization_id}/api-keys/{key_id} (also under /api): refused from now on,
 * and answered once the requests with the key under way on this instance have been (platform/requests-in-flight.ts).
 */
import { apiKeyPathInput } from '../../../shared/api-keys.ts';
import { messageOutput } from '../../../shared/fields.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { keyRequests } from '../../platform/requests-in-flight.ts';
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
  .mutation(({ ctx, input }) =>
    // Answered after the requests with the key under way here: none is answered 2xx after this.
    revokeApiKey(ctx.org, input.key_id, (secretHash) =>
      ctx.requestsInFlight.othersAnswered([keyRequests(secretHash)], ctx.answering),
    ),
  );
