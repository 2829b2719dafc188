/** PUT /organization-user: change a member's role. */
import { messageOutput } from '../../../shared/fields.ts';
import { changeRoleInput } from '../../../shared/members.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { changeRole } from './members.service.ts';
import { path, tags } from './rest.ts';

export const changeRoleProcedure = organizationProcedure({ from: 'header', may: 'members:update' })
  .meta(
    restEndpoint({
      method: 'PUT',
      path,
      tags,
      summary: "Change a member's role (owner or admin)",
      errors: [...BODY_ERRORS, 403, 404, 409],
      organizationScoped: true,
    }),
  )
  .input(changeRoleInput)
  .output(messageOutput)
  .mutation(async ({ ctx, input }) => {
    await changeRole(ctx.org, input);
    return { message: 'Role updated' };
  });
