/**
 * The embedded database's kept statements (server/platform/database/embedded-statements.ts), on a
 * real libSQL file with a second handle in the part of another process: a text is prepared once;
 * a kept statement holds no read open between runs; one that failed (here on a primary key) is
 * not kept but prepared again for its next run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'libsql';
import { CompiledQuery } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { keptStatements, type NativeDatabase } from '../../server/platform/database/embedded-statements.ts';

let folder: string;
let service: Database.Database;
let other: Database.Database;
let prepares: string[];

/** The service's handle, counting what it prepares. */
const counted = (): NativeDatabase => ({
  prepare: (sql) => {
    prepares.push(sql);
    return service.prepare(sql);
  },
});

const query = (sql: string, ...parameters: unknown[]) => CompiledQuery.raw(sql, parameters);

beforeEach(() => {
  folder = mkdtempSync(join(tmpdir(), 'kept-statements-'));
  const file = join(folder, 'orgs.db');
  service = new Database(file);
  service.exec(
    'pragma journal_mode = wal; pragma busy_timeout = 0; create table t (id integer primary key, name text)',
  );
  other = new Database(file);
  other.exec('pragma busy_timeout = 0');
  prepares = [];
});

afterEach(() => {
  service.close();
  other.close();
  rmSync(folder, { recursive: true, force: true });
});

describe('kept statements of the embedded database', () => {
  it('prepares a text once, and answers reads and writes as the ORM did', () => {
    const run = keptStatements(counted());
    const inserted = run(query('insert into t (name) values (?)', 'ada'));
    expect(inserted).toEqual({ rows: [], numAffectedRows: 1n, insertId: 1n });
    run(query('insert into t (name) values (?)', 'grace'));
    expect(run(query('select name from t where id > ? order by id', 0)).rows).toEqual([
      { name: 'ada' },
      { name: 'grace' },
    ]);
    expect(run(query('update t set name = ? where id = ? returning id', 'alan', 2)).rows).toEqual([{ id: 2 }]);
    expect(run(query('select name from t where id > ? order by id', 1)).rows).toEqual([{ name: 'alan' }]);
    expect(prepares).toEqual([
      'insert into t (name) values (?)',
      'select name from t where id > ? order by id',
      'update t set name = ? where id = ? returning id',
    ]);
  });

  it('holds no read open between runs: another handle checkpoints the whole log', () => {
    const run = keptStatements(counted());
    run(query('insert into t (name) values (?)', 'ada'));
    expect(run(query('select name from t where id = ?', 1)).rows).toHaveLength(1);
    other.prepare('insert into t (name) values (?)').run('grace');
    expect(other.prepare('pragma wal_checkpoint(TRUNCATE)').get()).toMatchObject({ busy: 0 });
    expect(run(query('select name from t where id = ?', 2)).rows).toEqual([{ name: 'grace' }]);
  });

  it('drops a statement that failed, and prepares its text again for the next run', () => {
    const run = keptStatements(counted());
    const insert = 'insert into t (id, name) values (?, ?)';
    // As the service writes (unit-of-work.ts): in a transaction that holds the write lock first.
    service.exec('begin immediate');
    run(query(insert, 1, 'ada'));
    expect(() => run(query(insert, 1, 'grace'))).toThrow(/constraint/i);
    service.exec('commit');
    expect(run(query(insert, 2, 'grace'))).toMatchObject({ numAffectedRows: 1n });
    expect(prepares.filter((sql) => sql === insert)).toHaveLength(2);
    expect(other.prepare('select name from t order by id').all()).toEqual([{ name: 'ada' }, { name: 'grace' }]);
  });
});
