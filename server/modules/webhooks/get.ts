/** GET /organizations/{organization_id}/webhooks/{webhook_id} (also under /api): one endpoint, without its secret. */
import { webhookOutput, webhookPathInput } from '../../../shared/webhooks.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { getWebhook } from './webhooks.service.ts';
import { tags, webhookPath } from './rest.ts';

export const getWebhookProcedure = organizationProcedure({ from: 'path', may: 'webhooks:manage' })
  .meta(
    restEndpoint({
      method: 'GET',
      path: webhookPath,
      tags,
      summary: 'Read one webhook endpoint, without its secret (webhooks:manage)',
      errors: [400, 403, 404],
    }),
  )
  .input(webhookPathInput)
  .output(webhookOutput)
  .query(({ ctx, input }) => getWebhook(ctx.org, input.webhook_id));
