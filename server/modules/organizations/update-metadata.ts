/** PATCH /organizations/{organization_id}/metadata (also under /api): a JSON Merge Patch of its metadata. */
import { metadataOutput, updateOrganizationMetadataInput } from '../../../shared/metadata.ts';
import { updateOrganizationMetadata } from './organizations.service.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';

export const updateOrganizationMetadataProcedure = organizationProcedure({
  from: 'path',
  may: 'organization:update',
  // An application key's alone (behaviour §16): refused before the body is looked at.
  whenGiven: { field: 'private_metadata', may: 'metadata:private' },
})
  .meta(
    restEndpoint({
      method: 'PATCH',
      path: '/organizations/{organization_id}/metadata',
      tags: ['organizations'],
      summary:
        "Change the organization's public_metadata (and, with an application key, private_metadata) by JSON Merge Patch",
      errors: [...BODY_ERRORS, 403],
    }),
  )
  .input(updateOrganizationMetadataInput)
  .output(metadataOutput)
  .mutation(({ ctx, input }) => updateOrganizationMetadata(ctx.org, input));
