/** GET /organizations/{organization_id}/api-keys (also under /api): the keys not revoked, never their secrets. */
import { apiKeyOutput } from '../../../shared/api-keys.ts';
import { listOutput, pageInput, pageOutput, restList, restListQuery } from '../../platform/rpc/lists.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { listApiKeys } from './api-keys.service.ts';
import { path, tags } from './rest.ts';

export const listApiKeysProcedure = organizationProcedure({ from: 'path', may: 'api_keys:manage' })
  .meta(
    restEndpoint({
      method: 'GET',
      path,
      tags,
      summary: "The organization's API keys that are not revoked, oldest first, with their last use (api_keys:manage)",
      errors: [400, 403],
      pagedList: true,
    }),
  )
  .input(restListQuery().unwrap())
  .output(listOutput(apiKeyOutput))
  .query(({ ctx, input }) => restList(ctx, input, (page) => listApiKeys(ctx.org, page)));

/** tRPC only: the keys a page at a time. */
export const apiKeysPageProcedure = organizationProcedure({ from: 'path', may: 'api_keys:manage' })
  .input(pageInput)
  .output(pageOutput(apiKeyOutput))
  .query(({ ctx, input }) => listApiKeys(ctx.org, input));
