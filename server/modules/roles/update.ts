/** PUT /organizations/{organization_id}/roles/{role} (also under /api): one of the organization's own roles. */
import { roleOutput, updateRoleInput } from '../../../shared/roles.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { updateRole } from './roles.service.ts';
import { path, tags } from './rest.ts';

export const updateRoleProcedure = organizationProcedure({ from: 'path', may: 'roles:manage' })
  .meta(
    restEndpoint({
      method: 'PUT',
      path: `${path}/{role}`,
      tags,
      summary:
        "Change an organization role's description and/or permissions; the caller must hold every permission it will hold (roles:manage)",
      errors: [...BODY_ERRORS, 403, 404, 409],
    }),
  )
  .input(updateRoleInput)
  .output(roleOutput)
  .mutation(({ ctx, input }) => updateRole(ctx.org, input));
