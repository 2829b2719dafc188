/** GET /users/export (also under /api): the caller's own data in one document (behaviour §15). */
import { accountExportOutput } from '../../../shared/account.ts';
import { callerProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { exportAccount } from './account.service.ts';

export const exportAccountProcedure = callerProcedure
  .meta(
    restEndpoint({
      method: 'GET',
      path: '/users/export',
      tags: ['users'],
      summary:
        "Export the caller's data: profile, memberships, pending invitations, join requests and their newest events",
      errors: [403, 404],
    }),
  )
  .output(accountExportOutput)
  .query(({ ctx }) => exportAccount(ctx.db, ctx.caller.userId));
