/** Opens the database named by DATABASE_URL and applies pending migrations when asked to. */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { MikroORM, type Options } from '@mikro-orm/core';
import type { SqlEntityManager } from '@mikro-orm/sql';
import { createOrmConfig, dialectOf, embeddedPath } from '../../mikro-orm.config.ts';

export type Orm = MikroORM & { em: SqlEntityManager };

export async function openDatabase(databaseUrl: string, options: Partial<Options> = {}): Promise<Orm> {
  if (dialectOf(databaseUrl) === 'sqlite' && databaseUrl !== ':memory:') {
    mkdirSync(dirname(embeddedPath(databaseUrl)), { recursive: true });
  }
  return (await MikroORM.init(createOrmConfig(databaseUrl, options))) as Orm;
}

/** Applies the pending migrations of the database's dialect; returns their names. */
export async function migrate(orm: Orm): Promise<string[]> {
  const applied = await orm.migrator.up();
  return applied.map((migration) => migration.name);
}
