/**
 * An organization's webhooks (behaviour §13): /organizations/{organization_id}/webhooks (also under
 * /api), one procedure a file. Delivery itself: fan-out.ts and dispatcher.ts.
 */
import { router } from '../../platform/rpc/init.ts';
import { createWebhookProcedure } from './create.ts';
import { deliveriesPageProcedure, listDeliveriesProcedure } from './deliveries.ts';
import { getWebhookProcedure } from './get.ts';
import { listWebhooksProcedure, webhooksPageProcedure } from './list.ts';
import { removeWebhookProcedure } from './remove.ts';
import { retryDeliveryProcedure } from './retry-delivery.ts';
import { rotateSecretProcedure } from './rotate-secret.ts';
import { sendTestProcedure } from './send-test.ts';
import { updateWebhookProcedure } from './update.ts';

export const webhooksRouter = router({
  list: listWebhooksProcedure,
  page: webhooksPageProcedure,
  create: createWebhookProcedure,
  get: getWebhookProcedure,
  update: updateWebhookProcedure,
  remove: removeWebhookProcedure,
  rotateSecret: rotateSecretProcedure,
  deliveries: listDeliveriesProcedure,
  deliveriesPage: deliveriesPageProcedure,
  retryDelivery: retryDeliveryProcedure,
  sendTest: sendTestProcedure,
});
