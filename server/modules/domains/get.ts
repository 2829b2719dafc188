/** GET /organizations/{organization_id}/domains/{domain_id} (also under /api): one domain. */
import { domainOutput, domainPathInput } from '../../../shared/domains.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { getDomain } from './domains.service.ts';
import { domainPath, tags } from './rest.ts';

export const getDomainProcedure = organizationProcedure({ from: 'path', may: 'domains:manage' })
  .meta(
    restEndpoint({
      method: 'GET',
      path: domainPath,
      tags,
      summary: 'One domain of the organization, with its verification and enrollment (domains:manage)',
      errors: [400, 403, 404],
    }),
  )
  .input(domainPathInput)
  .output(domainOutput)
  .query(({ ctx, input }) => getDomain(ctx.org, input.domain_id));
