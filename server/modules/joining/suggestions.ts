/** GET /organizations/suggestions (also under /api): the organizations the caller may join by their verified e-mail. */
import { suggestionOutput } from '../../../shared/joining.ts';
import { listOutput } from '../../platform/rpc/lists.ts';
import { callerProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { suggestions } from './joining.service.ts';
import { tags } from './rest.ts';

export const suggestionsProcedure = callerProcedure
  .meta(
    restEndpoint({
      method: 'GET',
      path: '/organizations/suggestions',
      tags,
      summary:
        "The organizations the caller is not in whose verified domain is the caller's verified e-mail's, with the enrollment suggestion or automatic",
      errors: [403],
    }),
  )
  .output(listOutput(suggestionOutput))
  .query(({ ctx }) => suggestions(ctx.db, ctx.caller));
