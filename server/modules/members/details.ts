/** GET /organizations/{organization_id}/members/{user_id} (also under /api): the newer read of one member. */
import { memberDetailsOutput, memberPathInput } from '../../../shared/members.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { getMemberDetails } from './members.service.ts';

export const memberDetailsProcedure = organizationProcedure({ from: 'path', may: 'members:read' })
  .meta(
    restEndpoint({
      method: 'GET',
      path: '/organizations/{organization_id}/members/{user_id}',
      tags: ['organization users'],
      summary: 'Read one member with their expiry, public metadata and teams (any member)',
      errors: [400, 403, 404],
    }),
  )
  .input(memberPathInput)
  .output(memberDetailsOutput)
  .query(({ ctx, input }) => getMemberDetails(ctx.org, input.user_id));
