/** GET /organizations/{organization_id}/join-requests (also under /api): the requests, oldest first. */
import { joinRequestOutput } from '../../../shared/joining.ts';
import { listOutput, pageInput, pageOutput, restList, restListQuery } from '../../platform/rpc/lists.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { listJoinRequests } from './joining.service.ts';
import { requestsPath, tags } from './rest.ts';

export const joinRequestsProcedure = organizationProcedure({ from: 'path', may: 'members:add' })
  .meta(
    restEndpoint({
      method: 'GET',
      path: requestsPath,
      tags,
      summary: "The organization's join requests, oldest first, with their status (members:add)",
      errors: [400, 403],
      pagedList: true,
    }),
  )
  .input(restListQuery().unwrap())
  .output(listOutput(joinRequestOutput))
  .query(({ ctx, input }) => restList(ctx, input, (page) => listJoinRequests(ctx.org, page)));

/** tRPC only: the join requests a page at a time. */
export const joinRequestsPageProcedure = organizationProcedure({ from: 'path', may: 'members:add' })
  .input(pageInput)
  .output(pageOutput(joinRequestOutput))
  .query(({ ctx, input }) => listJoinRequests(ctx.org, input));
