/** PUT /organizations/{organization_id}/directory (also under /api): the directory's default role. */
import { directoryOutput, updateDirectoryInput } from '../../../shared/directory.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { updateDirectory } from './directory.service.ts';
import { path, tags } from './rest.ts';

export const updateDirectoryProcedure = organizationProcedure({
  from: 'path',
  may: ['directory:sync', 'domains:manage'],
})
  .meta(
    restEndpoint({
      method: 'PUT',
      path,
      tags,
      summary:
        'Set the role of the memberships the directory makes (not owner; one the caller may give) (domains:manage)',
      errors: [...BODY_ERRORS, 403],
    }),
  )
  .input(updateDirectoryInput)
  .output(directoryOutput)
  .mutation(({ ctx, input }) => updateDirectory(ctx.org, input));
