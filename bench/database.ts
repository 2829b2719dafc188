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
