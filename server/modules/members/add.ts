/** POST /organization-user: add the user with an e-mail to the header's organization. */
import { membershipOutput } from '../../../shared/fields.ts';
import { addMemberInput } from '../../../shared/members.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { BODY_ERRORS, restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { addMember } from './members.service.ts';
import { path, tags } from './rest.ts';

export const addMemberProcedure = organizationProcedure({ from: 'header', may: 'members:add' })
  .meta(
    restEndpoint({
      method: 'POST',
      path,
      tags,
      summary: 'Add the user with this e-mail to the organization (owner or admin)',
      errors: [...BODY_ERRORS, 403, 404, 409],
      successStatus: 201,
      organizationScoped: true,
    }),
  )
  .input(addMemberInput)
  .output(membershipOutput)
  .mutation(({ ctx, input }) => addMember(ctx.org, input));
