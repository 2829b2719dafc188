/**
 * GET /permissions (also under /api): every permission a role may name or a check may ask about,
 * with its description, for any signed-in caller, a person or a key (behaviour §11). The console's
 * role editor lists them; they are the deployment's, not an organization's, so no membership is needed.
 */
import { permissionCatalogueOutput } from '../../../shared/permissions.ts';
import { APPLICATION_ONLY, OWNERS_ONLY } from '../../platform/role-catalogue.ts';
import { anyCallerProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { tags } from './rest.ts';

const ownersOnly = new Set<string>(OWNERS_ONLY);
const applicationOnly = new Set<string>(APPLICATION_ONLY);

export const permissionCatalogueProcedure = anyCallerProcedure
  .meta(
    restEndpoint({
      method: 'GET',
      path: '/permissions',
      tags,
      summary:
        "Every permission the service knows, its own then the roles file's, with its description and whether only owners, or only the application's keys, hold it (any caller)",
      errors: [403],
    }),
  )
  .output(permissionCatalogueOutput)
  .query(({ ctx }) =>
    [...ctx.settings.roles.permissions].map(([permission, description]) => ({
      permission,
      description,
      owners_only: ownersOnly.has(permission),
      application_only: applicationOnly.has(permission),
    })),
  );
