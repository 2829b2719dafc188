/** Members of the organization named by the `organization_id` header: /organization-user. */
import { z } from 'zod';
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
import { pageInput, pageOutput, restListQuery, restPageRequest, withNextLink } from './lists.ts';
import { organizationManagerProcedure, organizationMemberProcedure } from '../trpc/procedures.ts';

const tags = ['organization users'];

export const membersRouter = router({
  add: organizationManagerProcedure
    .meta({
      openapi: { method: 'POST', path: '/organization-user', tags, summary: 'Add a user to the organization' },
      successStatus: 201,
    })
    .input(addMemberInput)
    .output(membershipOutput)
    .mutation(({ ctx, input }) => addMember(ctx.em, ctx.actor, input)),

  changeRole: organizationManagerProcedure
    .meta({ openapi: { method: 'PUT', path: '/organization-user', tags, summary: "Change a member's role" } })
    .input(changeRoleInput)
    .output(messageOutput)
    .mutation(async ({ ctx, input }) => {
      await changeRole(ctx.em, ctx.actor, input);
      return { message: 'Role updated' };
    }),

  remove: organizationManagerProcedure
    .meta({
      openapi: { method: 'DELETE', path: '/organization-user', tags, summary: 'Remove a member from the organization' },
    })
    .input(removeMemberInput)
    .output(messageOutput)
    .mutation(async ({ ctx, input }) => {
      await removeMember(ctx.em, ctx.actor, input);
      return { message: 'Member removed' };
    }),

  get: organizationMemberProcedure
    .meta({ openapi: { method: 'GET', path: '/organization-user/{user_id}', tags, summary: 'Read one member' } })
    .input(getMemberInput)
    .output(memberOutput)
    .query(({ ctx, input }) => getMember(ctx.em, ctx.actor.organizationId, input.user_id)),

  list: organizationMemberProcedure
    .meta({ openapi: { method: 'GET', path: '/organization-user', tags, summary: "List the organization's members" } })
    .input(restListQuery())
    .output(z.array(memberListItemOutput))
    .query(async ({ ctx, input }) => {
      const request = restPageRequest(input);
      return withNextLink(ctx, request, await listMembers(ctx.em, ctx.actor.organizationId, request));
    }),

  /** tRPC only: the member list a page at a time. */
  page: organizationMemberProcedure
    .input(pageInput)
    .output(pageOutput(memberListItemOutput))
    .query(({ ctx, input }) => listMembers(ctx.em, ctx.actor.organizationId, input)),
});
