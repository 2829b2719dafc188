/**
 * POST /organizations/{organization_id}/permissions/check (also under /api): whether a member holds
 * each of the permissions named (any member; about another user, members:read). A read, so a query:
 * no transaction and no Idempotency-Key, on REST a POST only for its body.
 */
import { checkPermissionsInput, permissionCheckOutput } from '../../../shared/permissions.ts';
import { checkedInPlace } from '../../platform/rpc/checked-output.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { checkPermissions } from './permissions.sql.ts';
import { path, tags } from './rest.ts';

// The caller's membership, and the user's, are read by the check's own query.
export const checkPermissionsProcedure = organizationProcedure({
  from: 'path',
  may: 'organization:read',
  checkedInQuery: true,
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
  // Checked in place: zod's parse copies the answer, 1.4 µs for 20 results against 0.04 (a
  // micro-benchmark on Node 24). A clone, because checkedInPlace replaces the schema's parse.
  .output(checkedInPlace(permissionCheckOutput.clone()))
  .query(({ ctx, input }) => checkPermissions(ctx.db, ctx.actor, input.permissions, input.user_id));
