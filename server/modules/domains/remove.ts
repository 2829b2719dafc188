/** DELETE /organizations/{organization_id}/domains/{domain_id} (also under /api). */
import { domainPathInput } from '../../../shared/domains.ts';
import { messageOutput } from '../../../shared/fields.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { removeDomain } from './domains.service.ts';
import { domainPath, tags } from './rest.ts';

export const removeDomainProcedure = organizationProcedure({ from: 'path', may: 'domains:manage' })
  .meta(
    restEndpoint({
      method: 'DELETE',
      path: domainPath,
      tags,
      summary: 'Remove a domain: its people no longer find or join the organization by it (domains:manage)',
      errors: [...BODY_ERRORS, 403, 404],
    }),
  )
  .input(domainPathInput)
  .output(messageOutput)
  .mutation(({ ctx, input }) => removeDomain(ctx.org, input.domain_id));
