/** GET /organization-user/{user_id}: one member of the header's organization. */
import { getMemberInput, memberOutput } from '../../../shared/members.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { getMember } from './members.service.ts';
import { path, tags } from './rest.ts';

export const getMemberProcedure = organizationProcedure({ from: 'header', may: 'members:read' })
  .meta(
    restEndpoint({
      method: 'GET',
      path: `${path}/{user_id}`,
      tags,
      summary: 'Read one member (any member of the organization)',
      errors: [400, 403, 404],
      organizationScoped: true,
    }),
  )
  .input(getMemberInput)
  .output(memberOutput)
  .query(({ ctx, input }) => getMember(ctx.org, input.user_id));
