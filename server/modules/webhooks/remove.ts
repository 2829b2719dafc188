/** DELETE /organizations/{organization_id}/webhooks/{webhook_id} (also under /api): an endpoint and its delivery log. */
import { messageOutput } from '../../../shared/fields.ts';
import { webhookPathInput } from '../../../shared/webhooks.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { removeWebhook } from './webhooks.service.ts';
import { tags, webhookPath } from './rest.ts';

export const removeWebhookProcedure = organizationProcedure({ from: 'path', may: 'webhooks:manage' })
  .meta(
    restEndpoint({
      method: 'DELETE',
      path: webhookPath,
      tags,
      summary: 'Delete a webhook endpoint and its delivery log (webhooks:manage)',
      errors: [...BODY_ERRORS, 403, 404],
    }),
  )
  .input(webhookPathInput)
  .output(messageOutput)
  .mutation(({ ctx, input }) => removeWebhook(ctx.org, input.webhook_id));
