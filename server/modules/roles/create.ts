/** POST /organizations/{organization_id}/roles (also under /api): a role of the organization's own. */
import { createRoleInput, roleOutput } from '../../../shared/roles.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { createRole } from './roles.service.ts';
import { path, tags } from './rest.ts';

export const createRoleProcedure = organizationProcedure({ from: 'path', may: 'roles:manage' })
  .meta(
    restEndpoint({
      method: 'POST',
      path,
      tags,
      summary: 'Create a role of the organization with permissions the caller holds (roles:manage)',
      errors: [...BODY_ERRORS, 403, 409],
      successStatus: 201,
    }),
  )
  .input(createRoleInput)
  .output(roleOutput)
  .mutation(({ ctx, input }) => createRole(ctx.org, input));
