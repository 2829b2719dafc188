/** PUT /organizations/{organization_id}/teams/{team_id} (also under /api): a team's name, description and/or roles. */
import { teamOutput, updateTeamInput } from '../../../shared/teams.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { updateTeam } from './teams.service.ts';
import { tags, teamPath } from './rest.ts';

export const updateTeamProcedure = organizationProcedure({ from: 'path', may: 'teams:manage' })
  .meta(
    restEndpoint({
      method: 'PUT',
      path: teamPath,
      tags,
      summary:
        "Change a team's name, description and/or roles (given roles replace its own; the caller must hold every permission of each) (teams:manage)",
      errors: [...BODY_ERRORS, 403, 404, 409],
    }),
  )
  .input(updateTeamInput)
  .output(teamOutput)
  .mutation(({ ctx, input }) => updateTeam(ctx.org, input));
