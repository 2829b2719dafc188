/** GET /organizations/{organization_id}/directory (also under /api): the directory's settings and what it provisioned. */
import { directoryOutput } from '../../../shared/directory.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { getDirectory } from './directory.service.ts';
import { path, tags } from './rest.ts';

export const getDirectoryProcedure = organizationProcedure({ from: 'path', may: ['directory:sync', 'domains:manage'] })
  .meta(
    restEndpoint({
      method: 'GET',
      path,
      tags,
      summary:
        "The directory's default role, how many users and groups it provisioned, and its last 20 changes (domains:manage)",
      errors: [400, 403],
    }),
  )
  .output(directoryOutput)
  .query(({ ctx }) => getDirectory(ctx.org));
