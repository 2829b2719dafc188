/** GET /organizations/{organization_id} (also under /api): any member. */
import { organizationDetailsOutput } from '../../../shared/organizations.ts';
import { getOrganization } from './organizations.service.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';

// The membership is checked by the same query that reads the organization.
export const getOrganizationProcedure = organizationProcedure({
  from: 'path',
  may: 'organization:read',
})
  .meta(
    restEndpoint({
      method: 'GET',
      path: '/organizations/{organization_id}',
      tags: ['organizations'],
      summary: "Read an organization with the caller's role and its member count (any member)",
      errors: [400, 403],
    }),
  )
  .output(organizationDetailsOutput)
  .query(({ ctx }) => getOrganization(ctx.org));
