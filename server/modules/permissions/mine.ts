/** GET /organizations/{organization_id}/permissions (also under /api): the caller's own, any member. */
import { permissionsOutput } from '../../../shared/permissions.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { permissionsOf } from './permissions.sql.ts';
import { path, tags } from './rest.ts';

// The membership is checked by the same query that reads the role.
export const myPermissionsProcedure = organizationProcedure({
  from: 'path',
  may: 'organization:read',
  checkedInQuery: true,
})
  .meta(
    restEndpoint({
      method: 'GET',
      path,
      tags,
      summary: "The caller's role in the organization and its permissions, sorted (any member)",
      errors: [400, 403],
    }),
  )
  .output(permissionsOutput)
  .query(({ ctx }) => permissionsOf(ctx.db, ctx.actor));
