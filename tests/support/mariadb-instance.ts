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

  /**
   * Starts the server, on a new free port the first time. With test files running side by side,
   * another process may take that port between the check and the server's bind: the server then
   * exits, and a server of another test that answers there must not be taken for it (its socket
   * path tells). The first start tries other ports; a restart keeps its port, which the service
   * under test has in its URL.
   */
  async start(): Promise<void> {
    const firstStart = !this.port;
    if (firstStart) {
      execFileSync('chown', ['mysql:mysql', this.dir]);
      execFileSync('mariadb-install-db', [
        '--no-defaults',
        `--datadir=${join(this.dir, 'data')}`,
        '--user=mysql',
        '--auth-root-authentication-method=normal',
        '--skip-test-db',
      ]);
    }
    for (let attempt = 0; attempt < 5; attempt++) {
      if (firstStart) this.port = await freePort();
      if (await this.#launch()) {
        // The service refuses a database that does not exist (behaviour §1): the url's is made here.
        if (firstStart) await this.#query('create database if not exists orgs');
        return;
      }
      if (!firstStart) break;
    }
    throw new Error(`own MariaDB on port ${this.port} did not start (the port taken by another process?)`);
  }

  /** Spawns the server; whether it answers on its port, as itself, before it exits or 10 s pass. */
  async #launch(): Promise<boolean> {
    const socket = join(this.dir, 'mariadb.sock');
    const child = spawn(
      MARIADBD,
      [
        '--no-defaults',
        `--datadir=${join(this.dir, 'data')}`,
        `--port=${this.port}`,
        `--socket=${socket}`,
        `--pid-file=${join(this.dir, 'mariadb.pid')}`,
        '--bind-address=127.0.0.1',
        '--user=mysql',
      ],
      { stdio: 'ignore' },
    );
    this.#process = child;
    for (let attempt = 0; attempt < 100 && child.exitCode === null && child.signalCode === null; attempt++) {
      const answering = await this.#query('select @@socket as socket').catch(() => undefined);
      if ((answering as Array<{ socket: string }> | undefined)?.[0]?.socket === socket) return true;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    child.kill('SIGKILL');
    return false;
  }

  /** One statement as root on the server's port. */
  async #query(sql: string): Promise<unknown> {
    const connection = await mysql.createConnection({ host: '127.0.0.1', port: this.port, user: 'root' });
    try {
      return (await connection.query(sql))[0];
    } finally {
      await connection.end();
    }
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
