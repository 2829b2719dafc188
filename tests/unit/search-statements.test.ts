/**
 * server/modules/members/selected-members.queries.ts: which search pages run as server-side
 * prepared statements. Each connection keeps its prepared statements and MariaDB caps them over all
 * sessions, so however callers vary their searches, the prepared texts stay a small, fixed set.
 */
import type { Compilable } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { ClockedReader } from '../../server/platform/authorization/memberships.ts';
import { isServerPrepared } from '../../server/platform/database/prepared.ts';
import { toDbTimestamp } from '../../server/platform/database/schema.ts';
import type { SortedRequest } from '../../server/platform/database/sorted-pages.ts';
import { buildOnlySql } from '../../server/platform/database/unit-of-work.ts';
import {
  selectedLegacyMemberRows,
  selectedMemberRows,
  type LegacyMemberRow,
} from '../../server/modules/members/selected-members.queries.ts';
import { searchWords } from '../../shared/search.ts';

/** A reader that runs nothing: it keeps the SQL of each statement it is handed. */
function recordingReader(): ClockedReader & { texts: string[] } {
  const texts: string[] = [];
  const record = (query: Compilable<unknown>) => void texts.push(query.compile().sql);
  return {
    texts,
    sql: buildOnlySql('mariadb'),
    dialect: 'mysql',
    timestamp: (date) => toDbTimestamp('mysql', date),
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
async function textsOf(searches: string[], roleLists: Array<string[] | undefined>) {
  const reader = recordingReader();
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
