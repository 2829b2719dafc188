/** GET /teams (also under /api): the caller's teams in every organization they are a member of. */
import { z } from 'zod';
import { teamOutput } from '../../../shared/teams.ts';
import { callerProcedure } from '../../platform/rpc/procedures.ts';
import { listOutput } from '../../platform/rpc/lists.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { listMyTeams } from './teams.service.ts';
import { tags } from './rest.ts';

export const myTeamsProcedure = callerProcedure
  .meta(
    restEndpoint({
      method: 'GET',
      path: '/teams',
      tags,
      summary: "The caller's teams in every organization they are a member of, by organization, oldest first",
      errors: [400, 403],
    }),
  )
  .input(z.void())
  .output(listOutput(teamOutput))
  .query(({ ctx }) => listMyTeams(ctx.db, ctx.caller.userId));
