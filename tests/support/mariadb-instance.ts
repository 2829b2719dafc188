/**
 * A MariaDB server owned by one test: its own datadir, port and socket, started and stopped by
 * its PID, so a test can take the database away without touching the shared server.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';

import { MARIADBD, ownMariadbMissing } from './needs.ts';

/** Root can run it (the daemon drops to the mysql user); CI runs as root. */
export const canRunOwnMariadb = () => ownMariadbMissing() === undefined;

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export class OwnMariadb {
  readonly dir = mkdtempSync(join(tmpdir(), 'orgs-mariadb-'));
  port = 0;
  #process: ChildProcess | undefined;

  get url(): string {
    return `mariadb://root@127.0.0.1:${this.port}/orgs`;
  }

  async start(): Promise<void> {
    const firstStart = !this.port;
    if (firstStart) {
      this.port = await freePort();
      execFileSync('chown', ['mysql:mysql', this.dir]);
      execFileSync('mariadb-install-db', [
        '--no-defaults',
        `--datadir=${join(this.dir, 'data')}`,
        '--user=mysql',
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
      ]);
    }
    this.#process = spawn(
      MARIADBD,
      [
        '--no-defaults',
        `--datadir=${join(this.dir, 'data')}`,
        `--port=${this.port}`,
        `--socket=${join(this.dir, 'mariadb.sock')}`,
        `--pid-file=${join(this.dir, 'mariadb.pid')}`,
        '--bind-address=127.0.0.1',
        '--user=mysql',
      ],
      { stdio: 'ignore' },
    );
    for (let attempt = 0; attempt < 100; attempt++) {
      try {
        const connection = await mysql.createConnection({ host: '127.0.0.1', port: this.port, user: 'root' });
        // The service refuses a database that does not exist (behaviour §1): the url's is made here.
        if (firstStart) await connection.query('create database if not exists orgs');
        await connection.end();
        return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    throw new Error(`own MariaDB on port ${this.port} did not start`);
  }

  /** Stops the server: SIGTERM shuts it down cleanly, SIGKILL is a crash. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const child = this.#process;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  }

  /** Stalls the server as a hung host would: it keeps its connections but answers nothing. */
  freeze(): void {
    this.#process?.kill('SIGSTOP');
  }

  /** Lets a frozen server go on with what it was sent meanwhile. */
  thaw(): void {
    this.#process?.kill('SIGCONT');
  }

  async destroy(): Promise<void> {
    this.thaw();
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
