/** DELETE /organizations/{organization_id}/roles/{role} (also under /api): one no member or invitation holds. */
import { z } from 'zod';
import { messageOutput, roleSchema } from '../../../shared/fields.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { removeRole } from './roles.service.ts';
import { path, tags } from './rest.ts';

export const removeRoleProcedure = organizationProcedure({ from: 'path', may: 'roles:manage' })
  .meta(
    restEndpoint({
      method: 'DELETE',
      path: `${path}/{role}`,
      tags,
      summary: 'Delete a role of the organization that no member or pending invitation holds (roles:manage)',
      errors: [...BODY_ERRORS, 403, 404, 409],
    }),
  )
  .input(z.object({ role: roleSchema }))
  .output(messageOutput)
  .mutation(({ ctx, input }) => removeRole(ctx.org, input.role));
