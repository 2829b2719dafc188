/** GET /organizations/{organization_id}/webhooks/{webhook_id}/deliveries (also under /api): the log, newest first (tRPC: `deliveriesPage`). */
import { deliveryOutput, webhookIdSchema } from '../../../shared/webhooks.ts';
import { listOutput, pageInput, pageOutput, restListQuery, restList } from '../../platform/rpc/lists.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { listDeliveries } from './webhooks.service.ts';
import { tags, webhookPath } from './rest.ts';

export const listDeliveriesProcedure = organizationProcedure({ from: 'path', may: 'webhooks:manage' })
  .meta(
    restEndpoint({
      method: 'GET',
      path: `${webhookPath}/deliveries`,
      tags,
      summary: "A webhook endpoint's deliveries, newest first (webhooks:manage)",
      errors: [400, 403, 404],
      pagedList: true,
    }),
  )
  .input(restListQuery().unwrap().extend({ webhook_id: webhookIdSchema }))
  .output(listOutput(deliveryOutput))
  .query(({ ctx, input }) => restList(ctx, input, (page) => listDeliveries(ctx.org, input.webhook_id, page)));

/** tRPC only: the deliveries a page at a time. */
export const deliveriesPageProcedure = organizationProcedure({ from: 'path', may: 'webhooks:manage' })
  .input(pageInput.extend({ webhook_id: webhookIdSchema }))
  .output(pageOutput(deliveryOutput))
  .query(({ ctx, input }) => listDeliveries(ctx.org, input.webhook_id, input));
