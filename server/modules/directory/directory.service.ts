/**
 * The directory's settings and overview (behaviour §18): the default role of the memberships SCIM
 * makes, given under the no-escalation rule (§11), and what the identity provider provisioned.
 */
import type { z } from 'zod';
import {
  DIRECTORY_LAST_CHANGES,
  type DirectoryGroupView,
  type DirectoryUserView,
  type DirectoryView,
  type updateDirectoryInput,
} from '../../../shared/directory.ts';
import type { InOrganization } from '../../platform/authorization/in-organization.ts';
import { assertMayGive } from '../../platform/authorization/rules.ts';
import { toPage, type Page, type PageRequest } from '../../platform/database/pages.ts';
import type { Tx } from '../../platform/database/transaction.ts';
import { isoTimestamp } from '../../platform/database/timestamps.ts';
import { appendEvent } from '../../platform/organization-changes.ts';
import { readEvents } from '../events/events.service.ts';
import {
  directoryDefaultRole,
  directoryGroupCount,
  directoryGroupRows,
  directoryUserCounts,
  directoryUserRows,
  setDirectoryDefaultRole,
} from './directory.queries.ts';

/** What an organization's directory gives when it has never been set (the column's default). */
const INITIAL_DEFAULT_ROLE = 'member';

export async function getDirectory(org: InOrganization): Promise<DirectoryView> {
  const { organizationId } = org;
  const [defaultRole, users, groups, lastChanges] = await Promise.all([
    directoryDefaultRole(org.reads, organizationId),
    directoryUserCounts(org.reads, organizationId),
    directoryGroupCount(org.reads, organizationId),
    readEvents(org.reads, organizationId, { limit: DIRECTORY_LAST_CHANGES, newestFirst: true, via: 'scim' }),
  ]);
  return { default_role: defaultRole ?? INITIAL_DEFAULT_ROLE, users, groups, last_changes: lastChanges };
}

/**
 * Sets the default role: a role of the organization, not owner (a directory never makes owners),
 * holding nothing the caller does not hold. The same role changes nothing and records no event.
 */
export async function updateDirectory(
  org: InOrganization,
  input: z.infer<typeof updateDirectoryInput>,
): Promise<DirectoryView> {
  await org.change(async (tx, change) => {
    const current = (await directoryDefaultRole(tx, org.organizationId)) ?? INITIAL_DEFAULT_ROLE;
    const held = await change.held();
    await assertMayGive(tx, org.access, held, input.default_role, 'default_role');
    if (current === input.default_role) return;
    setDirectoryDefaultRole(tx, org.organizationId, input.default_role);
    await appendEvent(tx, change, {
      type: 'directory.updated',
      subjectUserId: null,
      data: { changes: { default_role: { from: current, to: input.default_role } } },
    });
  });
  return getDirectory(org);
}

/** Whether the directory gives `role` to the memberships it makes: a role it gives is in use (behaviour §18). */
export const directoryGives = async (tx: Tx, organizationId: string, role: string): Promise<boolean> =>
  ((await directoryDefaultRole(tx, organizationId)) ?? INITIAL_DEFAULT_ROLE) === role;

type DirectoryUserRow = Awaited<ReturnType<typeof directoryUserRows>>[number];

const directoryUserView = (row: DirectoryUserRow): DirectoryUserView => {
  const active = Boolean(row.active);
  return {
    directory_user_id: row.id,
    user_name: row.user_name,
    display_name: row.display_name,
    active,
    user_id: row.user_id,
    state: !active ? 'inactive' : row.member_id !== null ? 'member' : row.user_id !== null ? 'removed' : 'pending',
    created_at: isoTimestamp(row.created_at),
  };
};

export async function listDirectoryUsers(
  org: InOrganization,
  page: PageRequest = {},
): Promise<Page<DirectoryUserView>> {
  const rows = await directoryUserRows(org.reads, org.organizationId, page);
  return toPage(rows, page.limit, (row) => ({ createdAt: row.created_at, id: row.id }), directoryUserView);
}

type DirectoryGroupRow = Awaited<ReturnType<typeof directoryGroupRows>>[number];

const directoryGroupView = (row: DirectoryGroupRow): DirectoryGroupView => ({
  team_id: row.id,
  display_name: row.name,
  member_count: Number(row.member_count ?? 0),
  created_at: isoTimestamp(row.created_at),
});

export async function listDirectoryGroups(
  org: InOrganization,
  page: PageRequest = {},
): Promise<Page<DirectoryGroupView>> {
  const rows = await directoryGroupRows(org.reads, org.organizationId, page);
  return toPage(rows, page.limit, (row) => ({ createdAt: row.created_at, id: row.id }), directoryGroupView);
}
