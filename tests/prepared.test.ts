/** server/platform/database/prepared.ts: a prepared query runs the SQL and values its builder would, or refuses to be prepared. */
import { describe, expect, it } from 'vitest';
import type { Sql } from '../server/platform/database/schema.ts';
import { isServerPrepared, prepare } from '../server/platform/database/prepared.ts';
import { buildOnlySql } from '../server/platform/database/unit-of-work.ts';

const memberRole = (sql: Sql, organizationId: string, userId: string) =>
  sql
    .selectFrom('organization_users')
    .select('role')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .limit(1);

describe('prepared queries', () => {
  for (const dialect of ['mariadb', 'sqlite'] as const) {
    it(`compile to what the builder compiles, with each call's values (${dialect})`, () => {
      const sql = buildOnlySql(dialect);
      const prepared = prepare(memberRole);
      for (const [organizationId, userId] of [
        ['org-1', 'user-1'],
        ['org-2', "o'brien\u0000"],
        ['org-1', 'user-1'],
      ] as const) {
        const compiled = prepared(sql, organizationId, userId).compile();
        const built = memberRole(sql, organizationId, userId).compile();
        expect(compiled.sql).toBe(built.sql);
        expect(compiled.parameters).toEqual(built.parameters);
      }
    });
  }

  it('fills a value used twice in both places', () => {
    const sql = buildOnlySql('mariadb');
    const both = prepare((sql: Sql, id: string) =>
      sql.selectFrom('users').select('id').where('id', '=', id).where('email', '=', id),
    );
    expect(both(sql, 'x').compile().parameters).toEqual(['x', 'x']);
  });

  it('marks its SQL for a server-side prepared statement unless told not to', () => {
    const sql = buildOnlySql('mariadb');
    const statement = prepare(memberRole)(sql, 'org', 'user').compile().sql;
    const text = prepare((sql: Sql, id: string) => memberRole(sql, id, id).where('role', '=', 'owner'), {
      serverSide: false,
    })(sql, 'org').compile().sql;
    expect(isServerPrepared(statement)).toBe(true);
    expect(isServerPrepared(text)).toBe(false);
  });

  it('refuses a query whose shape depends on a value', () => {
    const sql = buildOnlySql('mariadb');
    const optional = prepare((sql: Sql, cursor: string) =>
      sql
        .selectFrom('users')
        .select('id')
        .$if(cursor === 'first', (query) => query.where('id', '>', cursor)),
    );
    expect(() => optional(sql, 'first')).toThrow(/must be a parameter of the query/);
  });
});
