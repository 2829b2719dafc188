/** DELETE /join-requests/{request_id} (also under /api): the requester withdraws a pending request. */
import { messageOutput } from '../../../shared/fields.ts';
import { joinRequestPathInput } from '../../../shared/joining.ts';
import { callerProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { withdrawJoinRequest } from './joining.service.ts';
import { myRequestsPath, tags } from './rest.ts';

export const withdrawJoinRequestProcedure = callerProcedure
  .meta(
    restEndpoint({
      method: 'DELETE',
      path: `${myRequestsPath}/{request_id}`,
      tags,
      summary: "Withdraw one of the caller's pending join requests",
      errors: [...BODY_ERRORS, 403, 404, 409],
    }),
  )
  .input(joinRequestPathInput)
  .output(messageOutput)
  .mutation(({ ctx, input }) => withdrawJoinRequest(ctx.db, ctx.caller, input.request_id));
