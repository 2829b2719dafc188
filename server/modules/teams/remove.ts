/** DELETE /organizations/{organization_id}/teams/{team_id} (also under /api): a team and its memberships. */
import { messageOutput } from '../../../shared/fields.ts';
import { teamPathInput } from '../../../shared/teams.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { removeTeam } from './teams.service.ts';
import { tags, teamPath } from './rest.ts';

export const removeTeamProcedure = organizationProcedure({ from: 'path', may: 'teams:manage' })
  .meta(
    restEndpoint({
      method: 'DELETE',
      path: teamPath,
      tags,
      summary: 'Delete a team: its members lose the permissions it gave (teams:manage)',
      errors: [...BODY_ERRORS, 403, 404],
    }),
  )
  .input(teamPathInput)
  .output(messageOutput)
  .mutation(({ ctx, input }) => removeTeam(ctx.org, input.team_id));
