/** POST /organizations/{organization_id}/join-requests/{request_id}/approve (also under /api). */
import { membershipOutput } from '../../../shared/fields.ts';
import { approveJoinRequestInput } from '../../../shared/joining.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { approveJoinRequest } from './joining.service.ts';
import { requestPath, tags } from './rest.ts';

export const approveJoinRequestProcedure = organizationProcedure({ from: 'path', may: 'members:add' })
  .meta(
    restEndpoint({
      method: 'POST',
      path: `${requestPath}/approve`,
      tags,
      summary:
        'Approve a pending join request: the membership with `role` (a role the caller may give), else the role the domain offered (members:add)',
      errors: [...BODY_ERRORS, 403, 404, 409],
      successStatus: 201,
      bodyOptional: true,
    }),
  )
  .input(approveJoinRequestInput)
  .output(membershipOutput)
  .mutation(({ ctx, input }) => approveJoinRequest(ctx.org, input.request_id, input.role));
