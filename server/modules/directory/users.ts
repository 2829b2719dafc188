/** GET /organizations/{organization_id}/directory/users (also under /api): the directory users, oldest first. */
import { directoryUserOutput } from '../../../shared/directory.ts';
import { listOutput, pageInput, pageOutput, restList, restListQuery } from '../../platform/rpc/lists.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { listDirectoryUsers } from './directory.service.ts';
import { path, tags } from './rest.ts';

export const directoryUsersProcedure = organizationProcedure({
  from: 'path',
  may: ['directory:sync', 'domains:manage'],
})
  .meta(
    restEndpoint({
      method: 'GET',
      path: `${path}/users`,
      tags,
      summary: "The directory's users, oldest first: member, pending (no record yet) or inactive (domains:manage)",
      errors: [400, 403],
      pagedList: true,
    }),
  )
  .input(restListQuery().unwrap())
  .output(listOutput(directoryUserOutput))
  .query(({ ctx, input }) => restList(ctx, input, (page) => listDirectoryUsers(ctx.org, page)));

/** tRPC only: the directory users a page at a time. */
export const directoryUsersPageProcedure = organizationProcedure({
  from: 'path',
  may: ['directory:sync', 'domains:manage'],
})
  .input(pageInput)
  .output(pageOutput(directoryUserOutput))
  .query(({ ctx, input }) => listDirectoryUsers(ctx.org, input));
