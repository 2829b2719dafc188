/** DELETE /organizations/{organization_id}/teams/{team_id}/members/{user_id} (also under /api): out of a team. */
import { messageOutput } from '../../../shared/fields.ts';
import { teamMemberInput } from '../../../shared/teams.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { removeTeamMember } from './teams.service.ts';
import { tags, teamPath } from './rest.ts';

// Leaving a team needs no permission: the member themselves may (behaviour §12).
export const removeTeamMemberProcedure = organizationProcedure({
  from: 'path',
  may: 'teams:manage',
  orSelf: { field: 'user_id' },
})
  .meta(
    restEndpoint({
      method: 'DELETE',
      path: `${teamPath}/members/{user_id}`,
      tags,
      summary: 'Take a member out of a team (teams:manage, or the member themselves)',
      errors: [...BODY_ERRORS, 403, 404],
    }),
  )
  .input(teamMemberInput)
  .output(messageOutput)
  .mutation(({ ctx, input }) => removeTeamMember(ctx.org, input.team_id, input.user_id));
