/** POST /organizations/{organization_id}/webhooks/{webhook_id}/test (also under /api): a `webhook.test` event for this endpoint alone. */
import { deliveryOutput, webhookPathInput } from '../../../shared/webhooks.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { sendTestEvent } from './webhooks.service.ts';
import { tags, webhookPath } from './rest.ts';

export const sendTestProcedure = organizationProcedure({ from: 'path', may: 'webhooks:manage' })
  .meta(
    restEndpoint({
      method: 'POST',
      path: `${webhookPath}/test`,
      tags,
      summary: 'Send the endpoint a test event, webhook.test, delivered like any other (webhooks:manage)',
      errors: [...BODY_ERRORS, 403, 404, 409],
      successStatus: 202,
    }),
  )
  .input(webhookPathInput)
  .output(deliveryOutput)
  .mutation(({ ctx, input }) => sendTestEvent(ctx.org, input.webhook_id));
