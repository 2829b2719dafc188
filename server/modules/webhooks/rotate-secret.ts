/** POST /organizations/{organization_id}/webhooks/{webhook_id}/rotate-secret (also under /api): a new signing secret. */
import { secretOutput, webhookPathInput } from '../../../shared/webhooks.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { rotateSecret } from './webhooks.service.ts';
import { tags, webhookPath } from './rest.ts';

export const rotateSecretProcedure = organizationProcedure({ from: 'path', may: 'webhooks:manage' })
  .meta(
    restEndpoint({
      method: 'POST',
      path: `${webhookPath}/rotate-secret`,
      tags,
      summary: 'Replace the signing secret; the old one signs beside the new one for 24 hours (webhooks:manage)',
      errors: [...BODY_ERRORS, 403, 404],
    }),
  )
  .input(webhookPathInput)
  .output(secretOutput)
  .mutation(({ ctx, input }) => rotateSecret(ctx.org, input.webhook_id));
