/** GET /organizations/{organization_id}/webhooks (also under /api): the endpoints, whole or a page at a time (tRPC: `page`). */
import { webhookOutput } from '../../../shared/webhooks.ts';
import { listOutput, pageInput, pageOutput, restListQuery, restList } from '../../platform/rpc/lists.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { listWebhooks } from './webhooks.service.ts';
import { path, tags } from './rest.ts';

export const listWebhooksProcedure = organizationProcedure({ from: 'path', may: 'webhooks:manage' })
  .meta(
    restEndpoint({
      method: 'GET',
      path,
      tags,
      summary: "List the organization's webhook endpoints, oldest first, without their secrets (webhooks:manage)",
      errors: [400, 403],
      pagedList: true,
    }),
  )
  .input(restListQuery().unwrap())
  .output(listOutput(webhookOutput))
  .query(({ ctx, input }) => restList(ctx, input, (page) => listWebhooks(ctx.org, page)));

/** tRPC only: the endpoints a page at a time. */
export const webhooksPageProcedure = organizationProcedure({ from: 'path', may: 'webhooks:manage' })
  .input(pageInput)
  .output(pageOutput(webhookOutput))
  .query(({ ctx, input }) => listWebhooks(ctx.org, input));
