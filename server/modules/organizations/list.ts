/** GET /organizations (also under /api), and the same list a page at a time over tRPC. */
import { organizationOutput } from '../../../shared/organizations.ts';
import { listOrganizations } from './organizations.service.ts';
import { callerProcedure } from '../../platform/rpc/procedures.ts';
import { listOutput, pageInput, pageOutput, restListQuery, restList } from '../../platform/rpc/lists.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';

export const listOrganizationsProcedure = callerProcedure
  .meta(
    restEndpoint({
      method: 'GET',
      path: '/organizations',
      tags: ['organizations'],
      summary: 'List the organizations the caller belongs to, oldest first',
      errors: [400],
      pagedList: true,
    }),
  )
  .input(restListQuery())
  .output(listOutput(organizationOutput))
  .query(({ ctx, input }) => restList(ctx, input, (page) => listOrganizations(ctx.db, ctx.caller, page)));

/** tRPC only: the caller's organizations a page at a time. */
export const organizationsPageProcedure = callerProcedure
  .input(pageInput)
  .output(pageOutput(organizationOutput))
  .query(({ ctx, input }) => listOrganizations(ctx.db, ctx.caller, input));
