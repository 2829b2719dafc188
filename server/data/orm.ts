/** Opens the database named by DATABASE_URL and applies pending migrations when asked to. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MikroORM, type Options } from '@mikro-orm/core';
import { SqlitePlatform, type SqlEntityManager } from '@mikro-orm/sql';
import { createOrmConfig, dialectOf, embeddedPath } from '../../mikro-orm.config.ts';
import { selectRow } from './sql.ts';

export type Orm = MikroORM & { em: SqlEntityManager };

export async function openDatabase(databaseUrl: string, options: Partial<Options> = {}): Promise<Orm> {
  if (dialectOf(databaseUrl) === 'sqlite' && databaseUrl !== ':memory:') {
    mkdirSync(dirname(embeddedPath(databaseUrl)), { recursive: true });
  }
  return (await MikroORM.init(createOrmConfig(databaseUrl, options))) as Orm;
}

const MIGRATION_LOCK = 'org-user-service:migrations';
const MIGRATION_LOCK_WAIT_SECONDS = 120;

/**
 * Applies the pending migrations of the database's dialect; returns their names. Instances started
 * together each migrate at start: on MySQL and MariaDB they take turns under a named lock
 * (GET_LOCK: owned by one session, freed by the server if that session's process dies), so the
 * later ones find nothing pending instead of failing on the tables the first one is creating.
 * The embedded database belongs to one process and needs none.
 */
export async function migrate(orm: Orm): Promise<string[]> {
  const applyPending = async () => (await orm.migrator.up()).map((migration) => migration.name);
  if (orm.em.getPlatform() instanceof SqlitePlatform) return applyPending();
  // A transaction is MikroORM's way to keep one session, the lock's owner, for the whole run.
  return orm.em.fork().transactional(async (session) => {
    const lock = await selectRow<{ acquired: number | null }>(session, 'select get_lock(?, ?) as acquired', [
      MIGRATION_LOCK,
      MIGRATION_LOCK_WAIT_SECONDS,
    ]);
    if (Number(lock?.acquired) !== 1) {
      throw new Error(`Another process held the migration lock for over ${MIGRATION_LOCK_WAIT_SECONDS} s`);
    }
    try {
      return await applyPending();
    } finally {
      await selectRow(session, 'select release_lock(?)', [MIGRATION_LOCK]);
    }
  });
}
