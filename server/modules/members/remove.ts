/** DELETE /organization-user: remove a member, or leave (any member, for their own user_id). */
import { messageOutput } from '../../../shared/fields.ts';
import { removeMemberInput } from '../../../shared/members.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { removeMember } from './members.service.ts';
import { path, tags } from './rest.ts';

export const removeMemberProcedure = organizationProcedure({
  from: 'header',
  may: 'members:remove',
  orSelf: { field: 'user_id' },
})
  .meta(
    restEndpoint({
      method: 'DELETE',
      path,
      tags,
      summary: 'Remove a member from the organization (owner or admin), or leave it (any member)',
      errors: [...BODY_ERRORS, 403, 404, 409],
      organizationScoped: true,
    }),
  )
  .input(removeMemberInput)
  .output(messageOutput)
  .mutation(async ({ ctx, input }) => {
    await removeMember(ctx.org, input);
    return { message: 'Member removed' };
  });
