/**
 * GET /admin/users: every user of the service, searched, a page at a time (application key), and the
 * same pages over tRPC.
 */
import { adminUserOutput } from '../../../shared/admin.ts';
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
import { listAllUsers } from './admin.service.ts';
import { ADMIN_NEXT_PAGE, tags } from './rest.ts';

const selection = () => ({ search: searchSchema.optional() });

export const listAllUsersProcedure = applicationProcedure
  .meta(
    restEndpoint({
      method: 'GET',
      path: '/admin/users',
      tags,
      summary:
        'List every user, oldest first, a page at a time; `search` by the words of names and e-mail (application key)',
      errors: [400, 403],
      nextPageLink: ADMIN_NEXT_PAGE,
    }),
  )
  .input(restSortedListQuery(selection()))
  .output(listOutput(adminUserOutput))
  .query(({ ctx, input = {} }) =>
    restSortedList(ctx, input, { search: input.search }, (page) => listAllUsers(ctx.db, input.search, page)),
  );

/** tRPC only: the same list, `{items, nextCursor}` a page at a time. */
export const allUsersPageProcedure = applicationProcedure
  .input(sortedPageInput(selection()))
  .output(pageOutput(adminUserOutput))
  .query(({ ctx, input }) => listAllUsers(ctx.db, input.search, input));
