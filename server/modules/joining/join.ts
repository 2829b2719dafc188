/** POST /organizations/{organization_id}/join (also under /api): joining by the caller's verified e-mail. */
import { joinOutput } from '../../../shared/joining.ts';
import { organizationPathInput } from '../../../shared/organizations.ts';
import { callerProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { join } from './joining.service.ts';
import { tags } from './rest.ts';

// Who may join depends on the caller's verified e-mail and the domain: the service checks it under the lock.
export const joinProcedure = callerProcedure
  .meta(
    restEndpoint({
      method: 'POST',
      path: '/organizations/{organization_id}/join',
      tags,
      summary:
        "Join by the caller's verified e-mail: 201 the membership where the domain's enrollment is automatic, 202 a pending join request where it is suggestion, 403 otherwise",
      errors: [...BODY_ERRORS, 403, 404, 409],
      successStatus: 201,
    }),
  )
  .input(organizationPathInput)
  .output(joinOutput)
  .mutation(async ({ ctx, input }) => {
    const joined = await join(ctx.db, ctx.caller, input.organization_id);
    if (joined.status === 'pending') ctx.restStatus.value = 202;
    return joined;
  });
