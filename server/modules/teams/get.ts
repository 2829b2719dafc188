/** GET /organizations/{organization_id}/teams/{team_id} (also under /api): one team. */
import { teamOutput, teamPathInput } from '../../../shared/teams.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { getTeam } from './teams.service.ts';
import { tags, teamPath } from './rest.ts';

export const getTeamProcedure = organizationProcedure({ from: 'path', may: 'teams:read' })
  .meta(
    restEndpoint({
      method: 'GET',
      path: teamPath,
      tags,
      summary: 'Read one team (teams:read: any member)',
      errors: [400, 403, 404],
    }),
  )
  .input(teamPathInput)
  .output(teamOutput)
  .query(({ ctx, input }) => getTeam(ctx.org, input.team_id));
