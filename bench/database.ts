/** The fresh MariaDB database each bench script works on, dropped at the end. */
import { randomBytes } from 'node:crypto';
import mysql from 'mysql2/promise';

const ADMIN_URL = process.env.TEST_MARIADB_URL ?? 'mariadb://orgs_test:orgs_test@127.0.0.1:3306';

export interface BenchDatabase {
  /** For the servers' DATABASE_URL. */
  url: string;
  /** A connection of the bench's own, to put data back or read it directly. */
  connection: mysql.Connection;
  drop: () => Promise<void>;
}

/** Needs an account that may create and drop `orgs_test_*` databases (TEST_MARIADB_URL). */
export async function createDatabase(purpose: string): Promise<BenchDatabase> {
  const name = `orgs_test_${purpose}_${randomBytes(4).toString('hex')}`;
  const adminUri = ADMIN_URL.replace(/^mariadb:/, 'mysql:').replace(/\/$/, '');
  const admin = await mysql.createConnection({ uri: adminUri });
  await admin.query(`CREATE DATABASE \`${name}\``);
  const connection = await mysql.createConnection({ uri: `${adminUri}/${name}` });
  return {
    url: `${ADMIN_URL.replace(/\/$/, '')}/${name}`,
    connection,
    drop: async () => {
      await connection.end();
      await admin.query(`DROP DATABASE IF EXISTS \`${name}\``);
      await admin.end();
    },
  };
}

/**
 * Columns and the table the lead's next migration adds, which the baseline already writes: created
 * here, after the service has migrated the database, until that migration is in this branch.
 */
export async function addPendingSchema(connection: mysql.Connection): Promise<void> {
  await connection.query(
    `alter table organizations add column if not exists updated_at datetime(3) null,
       add column if not exists version int not null default 0`,
  );
  await connection.query(
    `create table if not exists organization_events (event_id varchar(36) not null primary key,
       organization_id varchar(36) not null, type varchar(32) not null, actor_user_id varchar(128) not null,
       subject_user_id varchar(128) null, data json not null, created_at datetime(3) not null,
       index organization_events_organization_idx (organization_id, event_id))
     default character set utf8mb4 engine = InnoDB`,
  );
}
