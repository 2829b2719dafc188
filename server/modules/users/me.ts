/** GET /users (also under /api): the caller's user record. */
import { userOutput } from '../../../shared/users.ts';
import { callerProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { getUser } from './users.service.ts';

const tags = ['users'];

export const getMeProcedure = callerProcedure
  .meta(
    restEndpoint({ method: 'GET', path: '/users', tags, summary: "Read the caller's user record", errors: [403, 404] }),
  )
  .output(userOutput)
  .query(({ ctx }) => getUser(ctx.db, ctx.caller.userId));
