/** PUT /organizations/{organization_id} (also under /api): owner or admin. */
import { organizationDetailsOutput, updateOrganizationInput } from '../../../shared/organizations.ts';
import { updateOrganization } from './organizations.service.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';

export const updateOrganizationProcedure = organizationProcedure({ from: 'path', may: 'organization:update' })
  .meta(
    restEndpoint({
      method: 'PUT',
      path: '/organizations/{organization_id}',
      tags: ['organizations'],
      summary: "Change an organization's name and/or description (owner or admin)",
      errors: [...BODY_ERRORS, 403, 409],
    }),
  )
  .input(updateOrganizationInput)
  .output(organizationDetailsOutput)
  .mutation(({ ctx, input }) => updateOrganization(ctx.org, input));
