/** POST /organizations/{organization_id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry (also under /api): one more attempt, now. */
import { deliveryOutput, deliveryPathInput } from '../../../shared/webhooks.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { retryDelivery } from './webhooks.service.ts';
import { tags, webhookPath } from './rest.ts';

export const retryDeliveryProcedure = organizationProcedure({ from: 'path', may: 'webhooks:manage' })
  .meta(
    restEndpoint({
      method: 'POST',
      path: `${webhookPath}/deliveries/{delivery_id}/retry`,
      tags,
      summary: 'Make one more attempt of a delivery now, whatever its status (webhooks:manage)',
      errors: [...BODY_ERRORS, 403, 404, 409],
      successStatus: 202,
    }),
  )
  .input(deliveryPathInput)
  .output(deliveryOutput)
  .mutation(({ ctx, input }) => retryDelivery(ctx.org, input.webhook_id, input.delivery_id));
