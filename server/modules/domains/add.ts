/** POST /organizations/{organization_id}/domains (also under /api): a domain, pending or verified at once. */
import { addDomainInput, domainOutput } from '../../../shared/domains.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { addDomain } from './domains.service.ts';
import { path, tags } from './rest.ts';

export const addDomainProcedure = organizationProcedure({ from: 'path', may: 'domains:manage' })
  .meta(
    restEndpoint({
      method: 'POST',
      path,
      tags,
      summary:
        "Add an e-mail domain (not an IP address nor a public e-mail provider's), with the TXT record that verifies it; verified at once when the caller's verified e-mail is at it (domains:manage)",
      errors: [...BODY_ERRORS, 403, 409],
      successStatus: 201,
    }),
  )
  .input(addDomainInput)
  .output(domainOutput)
  .mutation(({ ctx, input }) => addDomain(ctx.org, ctx.caller, input));
