/** GET /organization-user: the header's organization's members, whole or a page at a time (tRPC: `page`). */
import { memberListItemOutput, memberPageItemOutput } from '../../../shared/members.ts';
import { listOutput, pageInput, pageOutput, restListQuery, restList } from '../../platform/rpc/lists.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { listMembers, membersPage } from './members.service.ts';
import { path, tags } from './rest.ts';

export const listMembersProcedure = organizationProcedure({ from: 'header', may: 'members:read' })
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
  .query(({ ctx, input }) => restList(ctx, input, (page) => listMembers(ctx.org, page)));

/** tRPC only: the member list a page at a time, with each membership's expiry. */
export const membersPageProcedure = organizationProcedure({ from: 'header', may: 'members:read' })
  .input(pageInput)
  .output(pageOutput(memberPageItemOutput))
  .query(({ ctx, input }) => membersPage(ctx.org, input));
