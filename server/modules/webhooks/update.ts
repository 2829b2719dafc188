/** PUT /organizations/{organization_id}/webhooks/{webhook_id} (also under /api): url, event types, description, enabled. */
import { updateWebhookInput, webhookOutput } from '../../../shared/webhooks.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { guardOptions } from './guard.ts';
import { updateWebhook } from './webhooks.service.ts';
import { tags, webhookPath } from './rest.ts';

export const updateWebhookProcedure = organizationProcedure({ from: 'path', may: 'webhooks:manage' })
  .meta(
    restEndpoint({
      method: 'PUT',
      path: webhookPath,
      tags,
      summary: "Change a webhook endpoint's url, event types, description or whether it is enabled (webhooks:manage)",
      errors: [...BODY_ERRORS, 403, 404],
    }),
  )
  .input(updateWebhookInput)
  .output(webhookOutput)
  .mutation(({ ctx, input }) => updateWebhook(ctx.org, input, guardOptions(ctx.settings)));
