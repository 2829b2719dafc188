/** GET /organizations/{organization_id}/permissions (also under /api): the caller's own, any member. */
import { permissionsOutput } from '../../../shared/permissions.ts';
import { ANY_MEMBER } from '../../platform/authorization/access.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { permissionsOf } from './permissions.service.ts';
import { path, tags } from './rest.ts';

// Any member, whatever their role holds (behaviour §11).
export const myPermissionsProcedure = organizationProcedure({ from: 'path', may: ANY_MEMBER, answersAccess: true })
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
  .query(({ ctx }) => permissionsOf(ctx.org));
