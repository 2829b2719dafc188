/** Members of the organization named by the `organization_id` header: /organization-user. */
import {
  addMemberInput,
  changeRoleInput,
  getMemberInput,
  memberListItemOutput,
  memberOutput,
  membershipOutput,
  messageOutput,
  removeMemberInput,
} from '../../shared/schemas.ts';
import { addMember, changeRole, getMember, listMembers, removeMember } from '../data/memberships.ts';
import { router } from '../trpc/init.ts';
import {
  organizationActorProcedure,
  organizationManagerProcedure,
  organizationMemberProcedure,
} from '../trpc/procedures.ts';
import { listOutput, pageInput, pageOutput, restListQuery, restPageRequest, withNextLink } from './lists.ts';
import { BODY_ERRORS, restEndpoint } from './rest-meta.ts';

const tags = ['organization users'];
const path = '/organization-user';

export const membersRouter = router({
  add: organizationManagerProcedure
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
    .mutation(({ ctx, input }) => addMember(ctx.db, ctx.actor, input)),

  changeRole: organizationManagerProcedure
    .meta(
      restEndpoint({
        method: 'PUT',
        path,
        tags,
        summary: "Change a member's role (owner or admin)",
        errors: [...BODY_ERRORS, 403, 404, 409],
        organizationScoped: true,
      }),
    )
    .input(changeRoleInput)
    .output(messageOutput)
    .mutation(async ({ ctx, input }) => {
      await changeRole(ctx.db, ctx.actor, input);
      return { message: 'Role updated' };
    }),

  remove: organizationManagerProcedure
    .meta(
      restEndpoint({
        method: 'DELETE',
        path,
        tags,
        summary: 'Remove a member from the organization (owner or admin)',
        errors: [...BODY_ERRORS, 403, 404, 409],
        organizationScoped: true,
      }),
    )
    .input(removeMemberInput)
    .output(messageOutput)
    .mutation(async ({ ctx, input }) => {
      await removeMember(ctx.db, ctx.actor, input);
      return { message: 'Member removed' };
    }),

  get: organizationActorProcedure
    .meta(
      restEndpoint({
        method: 'GET',
        path: `${path}/{user_id}`,
        tags,
        summary: 'Read one member (any member of the organization)',
        errors: [400, 403, 404],
        organizationScoped: true,
      }),
    )
    .input(getMemberInput)
    .output(memberOutput)
    .query(({ ctx, input }) => getMember(ctx.db, ctx.actor, input.user_id)),

  list: organizationMemberProcedure
    .meta(
      restEndpoint({
        method: 'GET',
        path,
        tags,
        summary: "List the organization's members (any member); created_at as `YYYY-MM-DD hh:mm:ss`",
        errors: [400, 403],
        organizationScoped: true,
        pagedList: true,
      }),
    )
    .input(restListQuery())
    .output(listOutput(memberListItemOutput))
    .query(async ({ ctx, input }) => {
      const request = restPageRequest(input);
      return withNextLink(ctx, request, await listMembers(ctx.db, ctx.actor, request));
    }),

  /** tRPC only: the member list a page at a time. */
  page: organizationMemberProcedure
    .input(pageInput)
    .output(pageOutput(memberListItemOutput))
    .query(({ ctx, input }) => listMembers(ctx.db, ctx.actor, input)),
});
