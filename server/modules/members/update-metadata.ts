/** PATCH /organizations/{organization_id}/members/{user_id}/metadata (also under /api): a JSON Merge Patch. */
import { metadataOutput, updateMemberMetadataInput } from '../../../shared/metadata.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { patchMemberMetadata } from './members.service.ts';

export const updateMemberMetadataProcedure = organizationProcedure({ from: 'path', may: 'members:update' })
  .meta(
    restEndpoint({
      method: 'PATCH',
      path: '/organizations/{organization_id}/members/{user_id}/metadata',
      tags: ['organization users'],
      summary: "Change a member's public_metadata by JSON Merge Patch",
      errors: [...BODY_ERRORS, 403, 404],
    }),
  )
  .input(updateMemberMetadataInput)
  .output(metadataOutput)
  .mutation(({ ctx, input }) => patchMemberMetadata(ctx.org, input));
