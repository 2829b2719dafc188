/**
 * GET /organization-user?search=&role=&limit= (behaviour §15): the first page of the members a
 * search and a role filter select, oldest first, with the Link to the next page, as the service
 * answers it; by hand, on the same word index (member_words) with the same plan hint. Other orders
 * and later pages are refused (400): the bench reads first pages.
 */
import { createHash } from 'node:crypto';
import type { RowDataPacket } from 'mysql2/promise';
import { prefixEnd, searchWords, SEARCH_MAX_LENGTH } from '../../shared/search.ts';
import { badRequest, JsonText, notInOrganization } from './errors.ts';
import { storedNow } from './events.ts';
import type { Caller } from './tokens.ts';
import { read, type Scope } from './transactions.ts';

const DEFAULT_PAGE_SIZE = 100;
const MAX_PAGE_SIZE = 1000;
const ROLE_LIST = /^[a-z][a-z0-9_-]{0,63}(,[a-z][a-z0-9_-]{0,63})*$/;
/** The sort key of the default order, as the service's cursors name it. */
const KEY_COLUMNS = ['m.created_at', 'm.user_id'];

/** The search, the roles and the page size of the query; 400 for what the baseline does not serve. */
function selectionOf(query: URLSearchParams) {
  if (query.has('sort') || query.has('cursor') || !(query.has('search') || query.has('role')))
    throw badRequest("This baseline serves a search's or a role filter's first page, in the default order");
  const search = query.get('search')?.trim();
  if (search !== undefined && (search.length < 1 || search.length > SEARCH_MAX_LENGTH))
    throw badRequest(`search: 1 to ${SEARCH_MAX_LENGTH} characters`);
  const role = query.get('role') ?? undefined;
  if (role !== undefined && (role.length > 1000 || !ROLE_LIST.test(role)))
    throw badRequest('role: one or more role names, comma-separated');
  const limit = query.has('limit') ? Number(query.get('limit')) : DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
    throw badRequest(`limit: an integer from 1 to ${MAX_PAGE_SIZE}`);
  return { search, role, limit };
}

/** A word the member has, beginning with the search word. Values: the organization, then the range. */
function wordMatch(word: string, values: unknown[], organizationId: string): string {
  const end = prefixEnd(word);
  values.push(organizationId, word, ...(end === null ? [] : [end]));
  return `and m.user_id in (select w.user_id from member_words w ignore index (member_words_user_id_index)
    where w.organization_id = ? and w.word >= ?${end === null ? '' : ' and w.word < ?'})`;
}

/** The cursor of the page after `last`: the service's form, base64url JSON of [fingerprint, key values]. */
function nextCursor(words: string[], roles: string[] | null, createdAt: string, userId: string): string {
  const fingerprint = createHash('sha256')
    .update(JSON.stringify([KEY_COLUMNS, false, [words, roles]]))
    .digest('base64url')
    .slice(0, 16);
  const createdMs = Date.parse(`${createdAt.replace(' ', 'T')}Z`);
  return Buffer.from(JSON.stringify([fingerprint, createdMs, userId])).toString('base64url');
}

export async function searchMembers(
  caller: Caller,
  organizationId: string,
  query: URLSearchParams,
  path: string,
  scope: Scope,
): Promise<[number, unknown, Record<string, string>?]> {
  const { search, role, limit } = selectionOf(query);
  const words = search === undefined ? [] : searchWords(search);
  const roles = role === undefined ? null : [...new Set(role.split(','))].sort();
  const now = storedNow();
  const values: unknown[] = [organizationId, caller.userId, now, organizationId, now];
  let where = '';
  for (const word of words) where += wordMatch(word, values, organizationId);
  if (roles) {
    where += ` and m.role in (${roles.map(() => '?').join(', ')})`;
    values.push(...roles);
  }
  // The caller's membership is a condition of the page; an empty page asks whether it failed.
  const rows = await read<RowDataPacket[]>(scope, {
    sql: `select m.user_id, u.first_name, u.last_name, m.role, u.email, m.created_at
       from organization_users m join users u on u.id = m.user_id
       where exists(select 1 from organization_users actor where actor.organization_id = ? and actor.user_id = ?
           and (actor.expires_at is null or actor.expires_at > ?))
         and m.organization_id = ? and (m.expires_at is null or m.expires_at > ?) ${where}
       order by m.created_at, m.user_id
       limit ${limit + 1}`,
    rowsAsArray: true,
    values,
  });
  if (rows.length === 0) await assertMember(caller, organizationId, scope);
  const members = rows as unknown as Array<[string, string, string, string, string, string]>;
  const shown = members.slice(0, limit);
  let text = '';
  for (const [userId, firstName, lastName, memberRole, email, createdAt] of shown) {
    text += `,{"user_id":${JSON.stringify(userId)},"first_name":${JSON.stringify(firstName)},"last_name":${JSON.stringify(lastName)},"role":"${memberRole}","email":${JSON.stringify(email)},"created_at":"${createdAt.slice(0, 19)}"}`;
  }
  const body = new JsonText(`[${text.slice(1)}]`);
  if (members.length <= limit) return [200, body];
  const last = shown.at(-1)!;
  const next = new URLSearchParams([
    ...(search === undefined ? [] : [['search', search]]),
    ...(role === undefined ? [] : [['role', role]]),
    ['limit', String(limit)],
    ['cursor', nextCursor(words, roles, last[5], last[0])],
  ]);
  return [200, body, { link: `<${path}?${next.toString()}>; rel="next"` }];
}

async function assertMember(caller: Caller, organizationId: string, scope: Scope): Promise<void> {
  const actor = await read<RowDataPacket[]>(scope, {
    sql: `select 1 from organization_users where organization_id = ? and user_id = ?
      and (expires_at is null or expires_at > ?)`,
    values: [organizationId, caller.userId, storedNow()],
  });
  if (actor.length === 0) throw notInOrganization();
}
