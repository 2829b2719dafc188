/**
 * What a statement's failure means (server/platform/database/unit-of-work.ts, StatementFailure):
 * a membership whose user's record was deleted meanwhile is refused by its foreign key, and the
 * change answers as without a record (behaviour §15), never 500. The races themselves are
 * tests/account-races.test.ts's; here, which statement is asked, with the drivers' own errors.
 */
import { CompiledQuery, type QueryResult } from 'kysely';
import { describe, expect, it } from 'vitest';
import { isMissingReference } from '../../server/platform/database/failures.ts';
import { sendStatements, type Statement } from '../../server/platform/database/unit-of-work.ts';

/** mysql2's error for an insert whose foreign key finds no parent row. */
const missingUser = Object.assign(
  new Error(
    'Cannot add or update a child row: a foreign key constraint fails (`orgs`.`organization_users`, CONSTRAINT `organization_users_user_id_foreign` FOREIGN KEY (`user_id`) REFERENCES `users` (`id`) ON DELETE CASCADE ON UPDATE CASCADE)',
  ),
  { errno: 1452, code: 'ER_NO_REFERENCED_ROW_2' },
);
/** The same refusal from another foreign key. */
const missingTeam = Object.assign(
  new Error(
    'Cannot add or update a child row: a foreign key constraint fails (`orgs`.`team_members`, CONSTRAINT `team_members_team_id_foreign` FOREIGN KEY (`team_id`) REFERENCES `teams` (`id`))',
  ),
  { errno: 1452, code: 'ER_NO_REFERENCED_ROW_2' },
);
/** libSQL's, which names no constraint. */
const sqliteMissing = Object.assign(new Error('SQLITE_CONSTRAINT_FOREIGNKEY: FOREIGN KEY constraint failed'), {
  code: 'SQLITE_CONSTRAINT_FOREIGNKEY',
});

const gone = new Error('No user has this e-mail address');
const membershipFailure = (error: unknown) =>
  isMissingReference(error, 'organization_users_user_id_foreign') ? gone : undefined;

/** A connection whose query number `failing` (from 0) fails with `error`. */
function failingConnection(failing: number, error: Error) {
  let sent = 0;
  return {
    executeQuery<Row>(): Promise<QueryResult<Row>> {
      return sent++ === failing ? Promise.reject(error) : Promise.resolve({ rows: [] });
    },
  };
}

const statement = (failed?: Statement['failed']): Statement => ({ query: CompiledQuery.raw('select 1'), failed });

describe('a statement’s failure', () => {
  it('is recognised by the foreign key MySQL and MariaDB name, and by any on SQLite', () => {
    expect(isMissingReference(missingUser, 'organization_users_user_id_foreign')).toBe(true);
    expect(isMissingReference(missingTeam, 'organization_users_user_id_foreign')).toBe(false);
    expect(isMissingReference(new Error('Deadlock found'), 'organization_users_user_id_foreign')).toBe(false);
    expect(isMissingReference(sqliteMissing, 'organization_users_user_id_foreign')).toBe(true);
  });

  it('sent with others in one query, means what the statement that recognises it says', async () => {
    const statements = [statement(), statement(membershipFailure), statement()];
    await expect(sendStatements(failingConnection(0, missingUser), statements, true)).rejects.toBe(gone);
    // Another statement's failure stays what it is.
    await expect(sendStatements(failingConnection(0, missingTeam), statements, true)).rejects.toBe(missingTeam);
  });

  it('sent one by one, is asked of the statement that failed only', async () => {
    const statements = [statement(), statement(membershipFailure), statement()];
    await expect(sendStatements(failingConnection(1, sqliteMissing), statements, false)).rejects.toBe(gone);
    await expect(sendStatements(failingConnection(2, sqliteMissing), statements, false)).rejects.toBe(sqliteMissing);
  });
});
