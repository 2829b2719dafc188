/** GET /organizations/{organization_id}/teams/{team_id}/members (also under /api): whole or a page at a time (tRPC: `membersPage`). */
import { teamIdSchema, teamMemberOutput } from '../../../shared/teams.ts';
import { listOutput, pageInput, pageOutput, restListQuery, restList } from '../../platform/rpc/lists.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { listTeamMembers } from './teams.service.ts';
import { tags, teamPath } from './rest.ts';

export const listTeamMembersProcedure = organizationProcedure({ from: 'path', may: 'teams:read' })
  .meta(
    restEndpoint({
      method: 'GET',
      path: `${teamPath}/members`,
      tags,
      summary: "List a team's members, by when they joined it (teams:read: any member)",
      errors: [400, 403, 404],
      pagedList: true,
    }),
  )
  .input(restListQuery().unwrap().extend({ team_id: teamIdSchema }))
  .output(listOutput(teamMemberOutput))
  .query(({ ctx, input }) => restList(ctx, input, (page) => listTeamMembers(ctx.org, input.team_id, page)));

/** tRPC only: a team's members a page at a time. */
export const teamMembersPageProcedure = organizationProcedure({ from: 'path', may: 'teams:read' })
  .input(pageInput.extend({ team_id: teamIdSchema }))
  .output(pageOutput(teamMemberOutput))
  .query(({ ctx, input }) => listTeamMembers(ctx.org, input.team_id, input));
