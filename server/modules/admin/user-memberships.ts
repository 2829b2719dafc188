/**
 * GET /admin/users/{user_id}/memberships: a user's current memberships, a page at a time (application
 * key), and the same pages over tRPC.
 */
import { adminMembershipOutput, userPathInput } from '../../../shared/admin.ts';
import {
  listOutput,
  pageOutput,
  restSortedList,
  restSortedListQuery,
  sortedPageInput,
} from '../../platform/rpc/lists.ts';
import { applicationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { listMembershipsOfUser } from './admin.service.ts';
import { ADMIN_NEXT_PAGE, tags } from './rest.ts';

export const userMembershipsProcedure = applicationProcedure
  .meta(
    restEndpoint({
      method: 'GET',
      path: '/admin/users/{user_id}/memberships',
      tags,
      summary: "List a user's current memberships, oldest first, a page at a time (application key)",
      errors: [400, 403, 404],
      nextPageLink: ADMIN_NEXT_PAGE,
    }),
  )
  .input(userPathInput.extend(restSortedListQuery({}).unwrap().shape))
  .output(listOutput(adminMembershipOutput))
  .query(({ ctx, input }) =>
    restSortedList(ctx, input, {}, (page) => listMembershipsOfUser(ctx.db, input.user_id, page)),
  );

/** tRPC only: the same list, `{items, nextCursor}` a page at a time. */
export const userMembershipsPageProcedure = applicationProcedure
  .input(sortedPageInput(userPathInput.shape))
  .output(pageOutput(adminMembershipOutput))
  .query(({ ctx, input }) => listMembershipsOfUser(ctx.db, input.user_id, input));
