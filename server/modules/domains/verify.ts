/** POST /organizations/{organization_id}/domains/{domain_id}/verify (also under /api): by its TXT record. */
import { domainOutput, domainPathInput } from '../../../shared/domains.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { txtLookup } from './dns-txt.ts';
import { verifyDomain } from './domains.service.ts';
import { domainPath, tags } from './rest.ts';

export const verifyDomainProcedure = organizationProcedure({ from: 'path', may: 'domains:manage' })
  .meta(
    restEndpoint({
      method: 'POST',
      path: `${domainPath}/verify`,
      tags,
      summary:
        'Verify a domain by the TXT record of its verification (409 DOMAIN_NOT_VERIFIED naming what was found; 503 when the resolvers fail) (domains:manage)',
      errors: [...BODY_ERRORS, 403, 404, 409, 503],
    }),
  )
  .input(domainPathInput)
  .output(domainOutput)
  .mutation(({ ctx, input }) => verifyDomain(ctx.org, input.domain_id, txtLookup(ctx.settings)));
