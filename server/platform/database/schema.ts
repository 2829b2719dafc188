/**
 * Typed SQL for the data layer: the Kysely instance MikroORM 7 provides (`em.getKysely()`), typed
 * from the entities, so a renamed column or a wrong value type fails `tsc`. Kysely sends parameters
 * to the driver bound, never formatted into the SQL text. Why not MikroORM's query builder or
 * `findOne`: they cost several times the CPU of the same SELECT through Kysely, on paths that run
 * on every request (docs/performance.md, "Measured choices in the code").
 */
import type { InferKyselyDB } from '@mikro-orm/sql';
import type { Kysely } from 'kysely';
import type { Engine } from './engine.ts';
import type { entities } from './entities.ts';

/**
 * A timestamp as the database holds it: `YYYY-MM-DD hh:mm:ss.mmm` text (UTC) on MySQL and MariaDB,
 * epoch milliseconds on the embedded database. Values are made by `Db.timestamp` and read back with
 * timestamps.ts; the brand keeps a plain `Date` (which the embedded driver cannot bind) out.
 */
export type DbTimestamp = (string | number) & { readonly __brand: 'DbTimestamp' };

type Tables = InferKyselyDB<(typeof entities)[number]>;
type WithDbTimestamps<Row> = {
  [Column in keyof Row]: Row[Column] extends Date
    ? DbTimestamp
    : Row[Column] extends Date | null
      ? DbTimestamp | null
      : Row[Column];
};

/**
 * team_members' columns as they are: MikroORM's inferred type names the two columns of its composite
 * foreign key to the membership after the relation (`membership_organization`, as arrays), not
 * after the columns the entity names (entities.ts, TeamMember).
 */
export interface TeamMembersTable {
  team_id: string;
  organization_id: string;
  user_id: string;
  added_at: DbTimestamp;
}

/** Every table with its columns and their types, as the queries see them. */
export type Database = Omit<{ [Table in keyof Tables]: WithDbTimestamps<Tables[Table]> }, 'team_members'> & {
  team_members: TeamMembersTable;
};
export type Sql = Kysely<Database>;

/** The database engine: the SQL is the same but for a few statements (see organization-changes.ts). */
export type Dialect = Engine;

/**
 * The last instant formatted, and the text of its second: under load several requests a millisecond
 * ask for the time now, and thousands a second; formatting a whole date each time showed in the
 * permission check's profile.
 */
let lastFormatted = { ms: Number.NaN, text: '' };
let lastSecond = { second: Number.NaN, text: '' };

function mysqlDatetime(date: Date): string {
  const ms = date.getTime();
  if (ms === lastFormatted.ms) return lastFormatted.text;
  const second = Math.floor(ms / 1000);
  // `2026-11-22 12:34:56.`, then the milliseconds.
  if (second !== lastSecond.second) lastSecond = { second, text: date.toISOString().slice(0, 20).replace('T', ' ') };
  const millis = ms - second * 1000;
  lastFormatted = { ms, text: `${lastSecond.text}${millis < 10 ? '00' : millis < 100 ? '0' : ''}${millis}` };
  return lastFormatted.text;
}

/** A Date in the form the dialect stores (see DbTimestamp). */
export const toDbTimestamp = (dialect: Dialect, date: Date): DbTimestamp =>
  (dialect === 'sqlite' ? date.getTime() : mysqlDatetime(date)) as DbTimestamp;
