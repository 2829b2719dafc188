/** GET /organizations/{organization_id}/teams (also under /api): the teams, whole or a page at a time (tRPC: `page`). */
import { teamOutput } from '../../../shared/teams.ts';
import { listOutput, pageInput, pageOutput, restListQuery, restList } from '../../platform/rpc/lists.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { listTeams } from './teams.service.ts';
import { path, tags } from './rest.ts';

export const listTeamsProcedure = organizationProcedure({ from: 'path', may: 'teams:read' })
  .meta(
    restEndpoint({
      method: 'GET',
      path,
      tags,
      summary: "List the organization's teams, oldest first (teams:read: any member)",
      errors: [400, 403],
      pagedList: true,
    }),
  )
  .input(restListQuery().unwrap())
  .output(listOutput(teamOutput))
  .query(({ ctx, input }) => restList(ctx, input, (page) => listTeams(ctx.org, page)));

/** tRPC only: the teams a page at a time. */
export const teamsPageProcedure = organizationProcedure({ from: 'path', may: 'teams:read' })
  .input(pageInput)
  .output(pageOutput(teamOutput))
  .query(({ ctx, input }) => listTeams(ctx.org, input));
