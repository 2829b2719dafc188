/** GET /join-requests (also under /api): the caller's own join requests. */
import { myJoinRequestOutput } from '../../../shared/joining.ts';
import { listOutput } from '../../platform/rpc/lists.ts';
import { callerProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { myJoinRequests } from './joining.service.ts';
import { myRequestsPath, tags } from './rest.ts';

export const myJoinRequestsProcedure = callerProcedure
  .meta(
    restEndpoint({
      method: 'GET',
      path: myRequestsPath,
      tags,
      summary: "The caller's join requests, oldest first, with their status",
      errors: [403],
    }),
  )
  .output(listOutput(myJoinRequestOutput))
  .query(({ ctx }) => myJoinRequests(ctx.db, ctx.caller));
