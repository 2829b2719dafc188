/** POST /organizations/{organization_id}/teams/{team_id}/members (also under /api): a member of the organization joins the team. */
import { teamMemberInput, teamMembershipOutput } from '../../../shared/teams.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { addTeamMember } from './teams.service.ts';
import { tags, teamPath } from './rest.ts';

export const addTeamMemberProcedure = organizationProcedure({ from: 'path', may: 'teams:manage' })
  .meta(
    restEndpoint({
      method: 'POST',
      path: `${teamPath}/members`,
      tags,
      summary:
        "Add a member of the organization to a team; the caller must hold every permission of the team's roles (teams:manage)",
      errors: [...BODY_ERRORS, 403, 404, 409],
      successStatus: 201,
    }),
  )
  .input(teamMemberInput)
  .output(teamMembershipOutput)
  .mutation(({ ctx, input }) => addTeamMember(ctx.org, input.team_id, input.user_id));
