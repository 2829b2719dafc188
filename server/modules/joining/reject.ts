/** POST /organizations/{organization_id}/join-requests/{request_id}/reject (also under /api). */
import { messageOutput } from '../../../shared/fields.ts';
import { joinRequestPathInput } from '../../../shared/joining.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { rejectJoinRequest } from './joining.service.ts';
import { requestPath, tags } from './rest.ts';

export const rejectJoinRequestProcedure = organizationProcedure({ from: 'path', may: 'members:add' })
  .meta(
    restEndpoint({
      method: 'POST',
      path: `${requestPath}/reject`,
      tags,
      summary: 'Reject a pending join request (members:add)',
      errors: [...BODY_ERRORS, 403, 404, 409],
    }),
  )
  .input(joinRequestPathInput)
  .output(messageOutput)
  .mutation(({ ctx, input }) => rejectJoinRequest(ctx.org, input.request_id));
