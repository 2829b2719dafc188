/** PUT /organizations/{organization_id}/limits (also under /api): the seat limit, an application key's. */
import { organizationDetailsOutput, setLimitsInput } from '../../../shared/organizations.ts';
import { setLimits } from './organizations.service.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';

export const setLimitsProcedure = organizationProcedure({ from: 'path', may: 'organization:limits' })
  .meta(
    restEndpoint({
      method: 'PUT',
      path: '/organizations/{organization_id}/limits',
      tags: ['organizations'],
      summary: "Set the organization's seat limit, max_members (an application key); lowering it removes nobody",
      errors: [...BODY_ERRORS, 403],
    }),
  )
  .input(setLimitsInput)
  .output(organizationDetailsOutput)
  .mutation(({ ctx, input }) => setLimits(ctx.org, input));
