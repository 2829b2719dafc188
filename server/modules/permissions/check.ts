/**
 * POST /organizations/{organization_id}/permissions/check (also under /api): whether a member holds
 * each of the permissions named (any member; about another user, members:read). A read, so a query:
 * no transaction and no Idempotency-Key, on REST a POST only for its body.
 */
import { checkPermissionsInput, permissionCheckOutput } from '../../../shared/permissions.ts';
import { checkedInPlace } from '../../platform/rpc/checked-output.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { checkPermissions } from './permissions.service.ts';
import { path, tags } from './rest.ts';

// Any member about themselves; about another user, members:read (behaviour §11).
export const checkPermissionsProcedure = organizationProcedure({
  from: 'path',
  may: 'members:read',
  orSelf: { field: 'user_id', absentMeansSelf: true },
  answersAccess: true,
})
  .meta(
    restEndpoint({
      method: 'POST',
      path: `${path}/check`,
      tags,
      summary: 'Whether the caller, or another user, holds each of these permissions (any member)',
      errors: [...BODY_ERRORS, 403],
    }),
  )
  .input(checkPermissionsInput)
  // Checked in place, not copied by zod's parse (docs/performance.md, "Measured choices in the
  // code"). A clone, because checkedInPlace replaces the schema's parse.
  .output(checkedInPlace(permissionCheckOutput.clone()))
  .query(({ ctx, input }) => checkPermissions(ctx.org, input.permissions, input.user_id));
