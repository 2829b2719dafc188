/** POST /organizations/{organization_id}/teams (also under /api): a team, with roles the caller may give. */
import { createTeamInput, teamOutput } from '../../../shared/teams.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { createTeam } from './teams.service.ts';
import { path, tags } from './rest.ts';

export const createTeamProcedure = organizationProcedure({ from: 'path', may: 'teams:manage' })
  .meta(
    restEndpoint({
      method: 'POST',
      path,
      tags,
      summary:
        'Create a team; its name is unique in the organization ignoring case, and the caller must hold every permission of its roles (teams:manage)',
      errors: [...BODY_ERRORS, 403, 409],
      successStatus: 201,
    }),
  )
  .input(createTeamInput)
  .output(teamOutput)
  .mutation(({ ctx, input }) => createTeam(ctx.org, input));
