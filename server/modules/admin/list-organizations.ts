/**
 * GET /admin/organizations: every organization of the service, searched, a page at a time (application
 * key), and the same pages over tRPC.
 */
import { adminOrganizationOutput } from '../../../shared/admin.ts';
import { searchSchema } from '../../../shared/search.ts';
import {
  listOutput,
  pageOutput,
  restSortedList,
  restSortedListQuery,
  sortedPageInput,
} from '../../platform/rpc/lists.ts';
import { applicationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { listAllOrganizations } from './admin.service.ts';
import { ADMIN_NEXT_PAGE, tags } from './rest.ts';

const selection = () => ({ search: searchSchema.optional() });

export const listAllOrganizationsProcedure = applicationProcedure
  .meta(
    restEndpoint({
      method: 'GET',
      path: '/admin/organizations',
      tags,
      summary:
        'List every organization, oldest first, a page at a time; `search` by the words of name and slug (application key)',
      errors: [400, 403],
      nextPageLink: ADMIN_NEXT_PAGE,
    }),
  )
  .input(restSortedListQuery(selection()))
  .output(listOutput(adminOrganizationOutput))
  .query(({ ctx, input = {} }) =>
    restSortedList(ctx, input, { search: input.search }, (page) => listAllOrganizations(ctx.db, input.search, page)),
  );

/** tRPC only: the same list, `{items, nextCursor}` a page at a time. */
export const allOrganizationsPageProcedure = applicationProcedure
  .input(sortedPageInput(selection()))
  .output(pageOutput(adminOrganizationOutput))
  .query(({ ctx, input }) => listAllOrganizations(ctx.db, input.search, input));
