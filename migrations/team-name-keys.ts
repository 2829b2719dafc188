/**
 * Recomputes every team's stored name key (behaviour §4.4, §12), for the migrations of both
 * dialects: the key was the name with its letter case folded, and is now the digest of its
 * comparable form (server/modules/teams/name-key.ts), which also ignores width, composition and
 * invisible characters. The names themselves are kept as they were written.
 *
 * Two teams of one organization whose names were distinct before may be one name now ("Managers"
 * and "Mana\u200bgers"). Both stay, named as they were: the oldest gets the key, and each later
 * one a key of its own, the key and its id, so that no third team can take the name, and renaming
 * either to another spelling of it is a 409 like any name in use.
 */
import type { Migration } from '@mikro-orm/migrations';
import { storedTeamNameKey } from '../server/modules/teams/name-key.ts';

export async function recomputeTeamNameKeys(migration: Migration): Promise<void> {
  await recompute(migration, '', []);
}

/** Organizations whose teams' keys are made again at a time (up to MAX_TEAMS teams each). */
export const ORGANIZATIONS_BATCH = 100;

/**
 * The same for the organizations with a team whose name holds `text` only: where the comparable
 * form changed for names that hold it, and only there. They are taken ORGANIZATIONS_BATCH at a
 * time in the order of their ids. Their keys are first set to the teams' ids (never a key: a
 * digest is 43 characters), so that a team may take a key another of them holds until its own
 * turn. The organization's other teams are made again too: the oldest of two names now one keeps
 * the key, whichever of the two holds `text`.
 */
export async function recomputeTeamNameKeysWhereNamesHold(migration: Migration, text: string): Promise<void> {
  let after = '';
  for (;;) {
    const rows = (await migration.execute(
      `select distinct organization_id from teams where organization_id > ? and instr(name, ?) > 0 order by organization_id limit ${ORGANIZATIONS_BATCH}`,
      [after, text],
    )) as Array<{ organization_id: string }>;
    if (rows.length === 0) return;
    const organizations = rows.map((row) => row.organization_id);
    const inBatch = `organization_id in (${organizations.map(() => '?').join(', ')})`;
    await migration.execute(`update teams set name_key = id where ${inBatch}`, organizations);
    await recompute(migration, `where ${inBatch}`, organizations);
    after = organizations.at(-1)!;
  }
}

async function recompute(migration: Migration, where: string, parameters: unknown[]): Promise<void> {
  const teams = (await migration.execute(
    `select id, organization_id, name from teams ${where} order by organization_id, created_at, id`,
    parameters,
  )) as Array<{ id: string; organization_id: string; name: string }>;
  const taken = new Set<string>();
  for (const team of teams) {
    let key = storedTeamNameKey(team.name);
    if (taken.has(`${team.organization_id} ${key}`)) key = `${key} ${team.id}`;
    taken.add(`${team.organization_id} ${key}`);
    await migration.execute('update teams set name_key = ? where id = ?', [key, team.id]);
  }
}
