/** PUT /organizations/{organization_id}/domains/{domain_id} (also under /api): enrollment and default role. */
import { domainOutput, updateDomainInput } from '../../../shared/domains.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { updateDomain } from './domains.service.ts';
import { domainPath, tags } from './rest.ts';

export const updateDomainProcedure = organizationProcedure({ from: 'path', may: 'domains:manage' })
  .meta(
    restEndpoint({
      method: 'PUT',
      path: domainPath,
      tags,
      summary:
        "Change a domain's enrollment (other than manual only once verified) and default role (not owner; one the caller may give) (domains:manage)",
      errors: [...BODY_ERRORS, 403, 404, 409],
    }),
  )
  .input(updateDomainInput)
  .output(domainOutput)
  .mutation(({ ctx, input }) => updateDomain(ctx.org, input));
