/** GET /organizations/{organization_id}/domains (also under /api): the organization's domains, oldest first. */
import { domainOutput } from '../../../shared/domains.ts';
import { listOutput, pageInput, pageOutput, restList, restListQuery } from '../../platform/rpc/lists.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { listDomains } from './domains.service.ts';
import { path, tags } from './rest.ts';

export const listDomainsProcedure = organizationProcedure({ from: 'path', may: 'domains:manage' })
  .meta(
    restEndpoint({
      method: 'GET',
      path,
      tags,
      summary: "The organization's domains, oldest first, pending and verified (domains:manage)",
      errors: [400, 403],
      pagedList: true,
    }),
  )
  .input(restListQuery().unwrap())
  .output(listOutput(domainOutput))
  .query(({ ctx, input }) => restList(ctx, input, (page) => listDomains(ctx.org, page)));

/** tRPC only: the domains a page at a time. */
export const domainsPageProcedure = organizationProcedure({ from: 'path', may: 'domains:manage' })
  .input(pageInput)
  .output(pageOutput(domainOutput))
  .query(({ ctx, input }) => listDomains(ctx.org, input));
