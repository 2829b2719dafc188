/** POST /organizations/{organization_id}/transfer-ownership (also under /api): owners only. */
import { transferOwnershipInput } from '../../../shared/organizations.ts';
import { messageOutput } from '../../../shared/fields.ts';
import { transferOwnership } from './organizations.service.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';

export const transferOwnershipProcedure = organizationProcedure({ from: 'path', may: 'ownership:transfer' })
  .meta(
    restEndpoint({
      method: 'POST',
      path: '/organizations/{organization_id}/transfer-ownership',
      tags: ['organizations'],
      summary: 'Make a member the owner; the caller becomes admin (owner)',
      errors: [...BODY_ERRORS, 403, 404],
    }),
  )
  .input(transferOwnershipInput)
  .output(messageOutput)
  .mutation(({ ctx, input }) => transferOwnership(ctx.org, input));
