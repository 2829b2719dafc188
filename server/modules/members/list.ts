/**
 * GET /organization-user: the header's organization's members, whole or a page at a time, searched,
 * filtered by role and sorted (behaviour §6, §15) (tRPC: `page`).
 */
import { memberListItemOutput, memberPageItemOutput } from '../../../shared/members.ts';
import { memberSortSchema, roleFilterSchema, searchSchema } from '../../../shared/search.ts';
import {
  listOutput,
  countedPageOutput,
  restList,
  restSortedList,
  restSortedListQuery,
  sortedPageInput,
} from '../../platform/rpc/lists.ts';
import { organizationProcedure } from '../../platform/rpc/procedures.ts';
import { restEndpoint } from '../../platform/rpc/rest-meta.ts';
import { listMembers, membersPage, selectedLegacyMembersPage, selectsMembers } from './members.service.ts';
import { path, tags } from './rest.ts';

const selection = () => ({
  search: searchSchema.optional().meta({
    description: 'Words (1 to 100 characters): each begins a word of the name or e-mail address of every member found',
  }),
  role: roleFilterSchema.optional().meta({ description: 'One or more role names, comma-separated' }),
  sort: memberSortSchema.optional().meta({
    description: '`created_at` (the default), `name` or `email`; a leading `-` reverses the order',
  }),
});

export const listMembersProcedure = organizationProcedure({ from: 'header', may: 'members:read' })
  .meta(
    restEndpoint({
      method: 'GET',
      path,
      tags,
      summary:
        "List the organization's members (any member); created_at as `YYYY-MM-DD hh:mm:ss`. With `search`, `role` or `sort`, a page",
      errors: [400, 403],
      organizationScoped: true,
      pagedList: true,
    }),
  )
  .input(restSortedListQuery(selection()))
  .output(listOutput(memberListItemOutput))
  .query(async ({ ctx, input }) => {
    if (!selectsMembers(input)) return restList(ctx, input, (page) => listMembers(ctx.org, page));
    const { search, role, sort } = input!;
    return restSortedList(ctx, input!, { search, role, sort }, (request) =>
      selectedLegacyMembersPage(ctx.org, { search, role, sort }, request),
    );
  });

/**
 * tRPC only: the member list a page at a time, with each membership's expiry; searched, filtered,
 * sorted. Each page of the whole list (no search or role filter) says how many members there are
 * (`total`).
 */
export const membersPageProcedure = organizationProcedure({ from: 'header', may: 'members:read' })
  .input(sortedPageInput(selection()))
  .output(countedPageOutput(memberPageItemOutput))
  .query(({ ctx, input }) => membersPage(ctx.org, input, input));
