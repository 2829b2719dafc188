/**
 * server/modules/members/selected-members.queries.ts: which search pages run as server-side
 * prepared statements. Each connection keeps its prepared statements and MariaDB caps them over all
 * sessions, so however callers vary their searches, the prepared texts stay a small, fixed set.
 * And which pages walk the members in order on MariaDB (word-index.ts, walksMembers).
 */
import { CompiledQuery, type Compilable } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { ClockedReader } from '../../server/platform/authorization/memberships.ts';
import { foldGuards, takesGuards } from '../../server/platform/database/folded-guards.ts';
import { isServerPrepared } from '../../server/platform/database/prepared.ts';
import { toDbTimestamp, type Dialect } from '../../server/platform/database/schema.ts';
import type { SortedRequest } from '../../server/platform/database/sorted-pages.ts';
import { buildOnlySql } from '../../server/platform/database/unit-of-work.ts';
import {
  selectedLegacyMemberRows,
  selectedMemberRows,
  type LegacyMemberRow,
} from '../../server/modules/members/selected-members.queries.ts';
import { searchWords } from '../../shared/search.ts';

/** A reader that runs nothing: it keeps the statement it is handed. */
function recordingReader(dialect: Dialect = 'mysql'): ClockedReader & { texts: string[]; last: () => CompiledQuery } {
  const statements: CompiledQuery[] = [];
  const texts: string[] = [];
  const record = (query: Compilable<unknown>) => {
    const compiled = query.compile();
    statements.push(compiled);
    texts.push(compiled.sql);
  };
  return {
    texts,
    last: () => statements.at(-1)!,
    sql: buildOnlySql(dialect === 'sqlite' ? 'sqlite' : 'mariadb'),
    dialect,
    timestamp: (date) => toDbTimestamp(dialect, date),
    first: (query) => (record(query), Promise.resolve(undefined)),
    all: (query) => (record(query), Promise.resolve([])),
  };
}

const userId = { column: 'm.user_id', kind: 'string', read: (row: LegacyMemberRow) => row.user_id } as const;
const byEmail = { column: 'u.email', kind: 'string', read: (row: LegacyMemberRow) => row.email } as const;

const request = (descending: boolean): SortedRequest<LegacyMemberRow> => ({
  key: [byEmail, userId],
  descending,
  scope: [],
  limit: 50,
});

/** The statement texts of a page of each search and roles, in both orders, through both statements. */
async function textsOf(searches: string[], roleLists: Array<string[] | undefined>, dialect: Dialect = 'mysql') {
  const reader = recordingReader(dialect);
  for (const search of searches)
    for (const roles of roleLists)
      for (const descending of [false, true])
        for (const rows of [selectedMemberRows, selectedLegacyMemberRows])
          await rows(reader, 'org-1', { words: searchWords(search), roles }, request(descending));
  return reader.texts;
}

describe('the search pages that run as prepared statements', () => {
  it('are those of at most two words and one role', async () => {
    const prepared = await textsOf(['ada', 'ada lovelace', 'ada@example.com'], [undefined, ['admin']]);
    expect(prepared.every(isServerPrepared)).toBe(true);
    const text = await textsOf(['ada king lovelace'], [undefined, ['admin', 'owner']]);
    text.push(...(await textsOf(['ada'], [['admin', 'owner']])));
    expect(text.some(isServerPrepared)).toBe(false);
  });

  it('stay a fixed set however the searches vary', async () => {
    const searches = Array.from({ length: 200 }, (_, index) =>
      Array.from({ length: 1 + (index % 5) }, (_, word) => `w${index}x${word}`).join(' '),
    );
    const roleLists = [undefined, ['admin'], ['member', 'owner'], ['a', 'b', 'c']];
    const texts = new Set(await textsOf(searches, roleLists));
    const prepared = [...texts].filter(isServerPrepared);
    // One or two words, with or without a role, in two orders, through two statements.
    expect(prepared.length).toBe(2 * 2 * 2 * 2);
    expect(texts.size).toBeGreaterThan(prepared.length);
  });
});

describe('a search page on MariaDB', () => {
  const WALK = "set statement optimizer_switch = 'materialization=off,loosescan=off' for select ";

  it('walks the members in order when every word is one or two letters, and only then', async () => {
    const walking = await textsOf(['l', 'la', 'la fi', 'é'], [undefined, ['admin']], 'mariadb');
    expect(walking.every((sql) => sql.startsWith(WALK))).toBe(true);
    const planned = await textsOf(['las', 'la lovelace', 'ada@example.com', ''], [undefined, ['admin']], 'mariadb');
    expect(planned.some((sql) => sql.startsWith('set statement'))).toBe(false);
    for (const dialect of ['mysql', 'sqlite'] as const) {
      const elsewhere = await textsOf(['la', 'la fi'], [undefined, ['admin']], dialect);
      expect(elsewhere.some((sql) => sql.startsWith('set statement'))).toBe(false);
    }
  });

  it("keeps its settings first when the caller's guard is folded in", async () => {
    const reader = recordingReader('mariadb');
    await selectedLegacyMemberRows(reader, 'org-1', { words: ['la'], roles: undefined }, request(false));
    const page = reader.last();
    expect(takesGuards(page.sql)).toBe(true);
    const guard = CompiledQuery.raw('select `role` from `organization_users` where `user_id` = ?', ['ada']);
    const folded = foldGuards([guard], page);
    expect(folded.sql).toBe(`${WALK}(${guard.sql}) as guard_value__0, ${page.sql.slice(WALK.length)}`);
    expect(folded.parameters).toEqual(['ada', ...page.parameters]);
    expect(isServerPrepared(folded.sql)).toBe(true);
  });

  it('stays a fixed set of prepared texts, walking or not', async () => {
    const searches = Array.from({ length: 100 }, (_, index) =>
      [`w${index}`, `x${index % 10}`, `${index}`].slice(0, 1 + (index % 3)).join(' '),
    );
    const texts = new Set(await textsOf(searches, [undefined, ['admin']], 'mariadb'));
    const prepared = [...texts].filter(isServerPrepared);
    // One or two words, walking or not, with or without a role, in two orders, through two statements.
    expect(prepared.filter((sql) => sql.startsWith(WALK)).length).toBe(2 * 2 * 2 * 2);
    expect(prepared.length).toBe(2 * 2 * 2 * 2 * 2);
  });
});
