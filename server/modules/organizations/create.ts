/** POST /organizations (also under /api): the caller becomes the owner. */
import { membershipOutput } from '../../../shared/fields.ts';
import { createOrganizationInput } from '../../../shared/organizations.ts';
import { createOrganization } from './organizations.service.ts';
import { organizationCreatorProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';

export const createOrganizationProcedure = organizationCreatorProcedure
  .meta(
    restEndpoint({
      method: 'POST',
      path: '/organizations',
      tags: ['organizations'],
      summary:
        "Create an organization; the caller becomes its owner (with the application's key: the user owner_user_id)",
      errors: [...BODY_ERRORS, 403, 404, 409],
      successStatus: 201,
    }),
  )
  .input(createOrganizationInput)
  .output(membershipOutput)
  .mutation(({ ctx, input }) => createOrganization(ctx.db, ctx.creator, input));
