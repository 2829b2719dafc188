/**
 * An organization named by its slug (behaviour §15): the id it stands for, read by the slug's
 * unique index before the request's authorization, which then runs as for the id.
 *
 * A read may instead take the id the slug named when last looked up on this instance (keptIdOfSlug)
 * and confirm it with a statement of its guard (confirmSlug): it goes out in the same round trip as
 * the guard and the read, and its check runs first, so a slug that names another organization now,
 * or none, refuses the whole read with SlugMoved before anything is handed back; the caller then
 * looks the slug up afresh. A change never takes a kept id: it must act on the organization the slug
 * names when it starts.
 */
import { LRUCache } from 'lru-cache';
import { prepare } from '../database/prepared.ts';
import type { GuardedReads } from '../database/guarded-reads.ts';
import type { Reader } from '../database/transaction.ts';

/**
 * What an unknown slug stands for: an id no organization has (ids are random UUIDs, never the nil
 * one), so that the authorization answers an unknown slug as it answers a non-member, 403.
 */
export const NO_ORGANIZATION = '00000000-0000-0000-0000-000000000000';

/** The most slugs whose organization is kept: each entry is two short strings. */
const SLUGS_KEPT = 10_000;

const idBySlug = new LRUCache<string, string>({ max: SLUGS_KEPT });

/** The slug a read took from idBySlug names another organization now, or none. */
export class SlugMoved extends Error {
  constructor(slug: string) {
    super(`The slug ${slug} no longer names the organization it named`);
  }
}

const organizationBySlug = prepare((sql, slug: string) =>
  sql.selectFrom('organizations').select('id').where('slug', '=', slug),
);

/** Looks the slug up now (and keeps what it names for the next read). */
export async function organizationIdBySlug(reader: Reader, slug: string): Promise<string> {
  const id = (await reader.first(organizationBySlug(reader.sql, slug)))?.id;
  if (id === undefined) return NO_ORGANIZATION;
  idBySlug.set(slug, id);
  return id;
}

/** The organization the slug named when last looked up here, if it is kept. */
export const keptIdOfSlug = (slug: string): string | undefined => idBySlug.get(slug);

/**
 * Queues, as the first guard of `reads`, the statement confirming that `slug` names
 * `organizationId`; when it does not, the kept id is dropped and `moved` is called with the refusal,
 * which is thrown.
 */
export function confirmSlug(
  reads: GuardedReads,
  slug: string,
  organizationId: string,
  moved: (refusal: SlugMoved) => void,
): void {
  const query = organizationBySlug(reads.sql, slug);
  reads.guard(
    query,
    (result) => {
      if (result.rows[0]?.id === organizationId) return;
      idBySlug.delete(slug);
      const refusal = new SlugMoved(slug);
      moved(refusal);
      throw refusal;
    },
    // One column (the id) of at most one row (slugs are unique): it can go as a column of the read.
    { asColumn: () => query.compile(), resultOf: (id) => ({ rows: id === null ? [] : [{ id: id as string }] }) },
  );
}
