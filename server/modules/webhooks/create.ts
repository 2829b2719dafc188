/** POST /organizations/{organization_id}/webhooks (also under /api): an endpoint, answered with its secret. */
import { createdWebhookOutput, createWebhookInput } from '../../../shared/webhooks.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { guardOptions } from './guard.ts';
import { createWebhook } from './webhooks.service.ts';
import { path, tags } from './rest.ts';

export const createWebhookProcedure = organizationProcedure({ from: 'path', may: 'webhooks:manage' })
  .meta(
    restEndpoint({
      method: 'POST',
      path,
      tags,
      summary:
        'Create a webhook endpoint; the answer holds its signing secret, shown only here and on rotation (webhooks:manage)',
      errors: [...BODY_ERRORS, 403, 409],
      successStatus: 201,
    }),
  )
  .input(createWebhookInput)
  .output(createdWebhookOutput)
  .mutation(({ ctx, input }) => createWebhook(ctx.org, input, guardOptions(ctx.settings)));
