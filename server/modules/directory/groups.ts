/** GET /organizations/{organization_id}/directory/groups (also under /api): the directory groups, oldest first. */
import { directoryGroupOutput } from '../../../shared/directory.ts';
import { listOutput, pageInput, pageOutput, restList, restListQuery } from '../../platform/rpc/lists.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { listDirectoryGroups } from './directory.service.ts';
import { path, tags } from './rest.ts';

export const directoryGroupsProcedure = organizationProcedure({
  from: 'path',
  may: ['directory:sync', 'domains:manage'],
})
  .meta(
    restEndpoint({
      method: 'GET',
      path: `${path}/groups`,
      tags,
      summary:
        "The directory's groups (teams the identity provider made), oldest first, with their member counts (domains:manage)",
      errors: [400, 403],
      pagedList: true,
    }),
  )
  .input(restListQuery().unwrap())
  .output(listOutput(directoryGroupOutput))
  .query(({ ctx, input }) => restList(ctx, input, (page) => listDirectoryGroups(ctx.org, page)));

/** tRPC only: the directory groups a page at a time. */
export const directoryGroupsPageProcedure = organizationProcedure({
  from: 'path',
  may: ['directory:sync', 'domains:manage'],
})
  .input(pageInput)
  .output(pageOutput(directoryGroupOutput))
  .query(({ ctx, input }) => listDirectoryGroups(ctx.org, input));
