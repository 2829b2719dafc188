/** GET /organizations (also under /api), searched (behaviour §15), and the same list a page at a time over tRPC. */
import { organizationOutput } from '../../../shared/organizations.ts';
import { searchSchema } from '../../../shared/search.ts';
import { listOrganizations, searchOrganizations } from './organizations.service.ts';
import { callerProcedure } from '../../platform/rpc/procedures.ts';
import {
  listOutput,
  pageOutput,
  restList,
  restSortedList,
  restSortedListQuery,
  sortedPageInput,
} from '../../platform/rpc/lists.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';

const selection = () => ({ search: searchSchema.optional() });

export const listOrganizationsProcedure = callerProcedure
  .meta(
    restEndpoint({
      method: 'GET',
      path: '/organizations',
      tags: ['organizations'],
      summary:
        'List the organizations the caller belongs to, oldest first; with `search` (words of the name or slug), a page',
      errors: [400, 403],
      pagedList: true,
    }),
  )
  .input(restSortedListQuery(selection()))
  .output(listOutput(organizationOutput))
  .query(({ ctx, input }) => {
    const search = input?.search;
    if (search === undefined) return restList(ctx, input, (page) => listOrganizations(ctx.db, ctx.caller, page));
    return restSortedList(ctx, input!, { search }, (page) => searchOrganizations(ctx.db, ctx.caller, search, page));
  });

/** tRPC only: the caller's organizations a page at a time, searched. */
export const organizationsPageProcedure = callerProcedure
  .input(sortedPageInput(selection()))
  .output(pageOutput(organizationOutput))
  .query(({ ctx, input }) =>
    input.search === undefined
      ? listOrganizations(ctx.db, ctx.caller, input)
      : searchOrganizations(ctx.db, ctx.caller, input.search, input),
  );
