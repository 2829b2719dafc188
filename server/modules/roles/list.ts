/** GET /organizations/{organization_id}/roles (also under /api): every role usable in the organization. */
import { z } from 'zod';
import { roleOutput } from '../../../shared/roles.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { listRoles } from './roles.service.ts';
import { path, tags } from './rest.ts';

export const listRolesProcedure = organizationProcedure({ from: 'path', may: 'roles:read' })
  .meta(
    restEndpoint({
      method: 'GET',
      path,
      tags,
      summary:
        "The organization's roles: the built-in ones, the instance ones, then its own by name, each with its permissions, sorted (roles:read: any member)",
      errors: [400, 403],
    }),
  )
  .output(z.array(roleOutput))
  .query(({ ctx }) => listRoles(ctx.org));
