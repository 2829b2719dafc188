/** GET /organizations/slug/{slug} (also under /api): any member, answered as the read by id. */
import { organizationDetailsOutput } from '../../../shared/organizations.ts';
import { getOrganization } from './organizations.service.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';

export const getOrganizationBySlugProcedure = organizationProcedure({ from: 'slug', may: 'organization:read' })
  .meta(
    restEndpoint({
      method: 'GET',
      path: '/organizations/slug/{slug}',
      tags: ['organizations'],
      summary: 'Read an organization by its slug (any member; an unknown slug is answered as a non-member, 403)',
      errors: [400, 403],
    }),
  )
  .output(organizationDetailsOutput)
  .query(({ ctx }) => getOrganization(ctx.org));
