/**
 * A 3-node MariaDB Galera cluster owned by one test file (or the Galera benchmark): three
 * `mariadbd` processes on 127.0.0.1 with their own datadirs under one temp directory and ports of
 * their choosing, the first bootstrapping the cluster and the other two joining it by a real state
 * transfer. Needs root (the daemons drop to the mysql user) and Debian's galera-4; CI runs as root
 * and `.ci/run` installs galera-4.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mysql from 'mysql2/promise';
import { GALERA_PROVIDER, MARIADBD } from './needs.ts';
import { freePorts } from './ports.ts';

const NODES = 3;
/** Generous: the SST script is a shell script that crawls on a machine whose 2 cores are busy. */
const START_DEADLINE_MS = 150_000;
const STOP_DEADLINE_MS = 30_000;

/** The account and database prefix the service uses on the cluster (like orgs_test on the shared server). */
const ACCOUNT = { user: 'orgs', password: 'orgs' };

/**
 * Small InnoDB files, since the state transfer copies them to each joiner, and commits flushed to
 * the OS but not fsynced: in Galera a commit is safe once the cluster has certified it (a node that
 * crashes catches up from the others), which is how Galera clusters are commonly run.
 */
const INNODB_OPTIONS = [
  '--innodb_log_file_size=16M',
  '--innodb_buffer_pool_size=64M',
  '--innodb_flush_log_at_trx_commit=2',
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface GaleraNode {
  name: string;
  dir: string;
  /** SQL clients. */
  port: number;
  /** Galera's group communication (gcomm), incremental state transfer, and full state transfer. */
  gcommPort: number;
  istPort: number;
  sstPort: number;
  process?: ChildProcess;
}

export class GaleraCluster {
  /** Made by start(), so that a cluster declared in a skipped suite leaves nothing behind. */
  #dir: string | undefined;
  readonly nodes: GaleraNode[] = [];
  /** Unique, so that two clusters on one machine never merge. */
  readonly #clusterName = `orgs-test-${randomBytes(4).toString('hex')}`;
  /** Milliseconds from start() until all three nodes were synced and the account was usable on each. */
  startupMs = 0;
  readonly #killOnExit = () => {
    for (const node of this.nodes) node.process?.kill('SIGKILL');
  };

  /** The service's URL for `database` on node `index` (0-based). */
  url(index: number, database: string): string {
    return `mariadb://${ACCOUNT.user}:${ACCOUNT.password}@127.0.0.1:${this.#node(index).port}/${database}`;
  }

  /** A root session on node `index`, for checks and settings the service's account may not make. */
  rootConnection(index: number): Promise<mysql.Connection> {
    return mysql.createConnection({ host: '127.0.0.1', port: this.#node(index).port, user: 'root' });
  }

  /** Creates an empty database (replicated to every node) and returns its name. */
  async createDatabase(): Promise<string> {
    const name = `orgs_${randomBytes(6).toString('hex')}`;
    const root = await this.rootConnection(0);
    try {
      await root.query(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4`);
    } finally {
      await root.end();
    }
    return name;
  }

  async start(): Promise<void> {
    const started = performance.now();
    process.once('exit', this.#killOnExit);
    const clusterDir = mkdtempSync(join(tmpdir(), 'orgs-galera-'));
    this.#dir = clusterDir;
    try {
      const ports = await freePorts(NODES * 4);
      for (let index = 0; index < NODES; index++) {
        const [port, gcommPort, istPort, sstPort] = ports.slice(index * 4, index * 4 + 4) as [
          number,
          number,
          number,
          number,
        ];
        const dir = join(clusterDir, `node${index + 1}`);
        mkdirSync(join(dir, 'data'), { recursive: true });
        this.nodes.push({ name: `node${index + 1}`, dir, port, gcommPort, istPort, sstPort });
      }
      execFileSync('chown', ['-R', 'mysql:mysql', clusterDir]);
      // Only the first node needs system tables: the joiners' datadirs stay empty and are filled
      // by the state transfer from a synced node, as when a node is added to a running cluster.
      execFileSync(
        'mariadb-install-db',
        [
          '--no-defaults',
          `--datadir=${join(this.nodes[0]!.dir, 'data')}`,
          '--user=mysql',
          '--auth-root-authentication-method=normal',
          '--skip-test-db',
          ...INNODB_OPTIONS,
        ],
        { stdio: 'ignore' },
      );
      const [first, second, third] = this.nodes as [GaleraNode, GaleraNode, GaleraNode];
      this.#spawn(first, ['--wsrep-new-cluster']);
      await this.#waitUntilSynced(first);
      // One joiner at a time into the group: two joining at once make the group re-form its view
      // a few times, which here cost more than the wait. The third may start once the second is
      // in the group; it waits for a free donor while the second receives its state transfer.
      this.#spawn(second);
      await this.#waitFor(first, async (session) => Number(await status(session, 'wsrep_cluster_size')) >= 2);
      this.#spawn(third);
      await this.#waitUntilSynced(second);
      await this.#waitUntilSynced(third);
      await this.#createAccount();
      this.startupMs = Math.round(performance.now() - started);
    } catch (error) {
      const logs = this.nodes.map((node) => `--- ${node.name} (last lines)\n${this.#logTail(node)}`).join('\n');
      await this.destroy();
      throw new Error(`Galera cluster did not start: ${(error as Error).message}\n${logs}`, { cause: error });
    }
  }

  /** Stops every node (SIGTERM, then SIGKILL past the deadline) and removes the datadirs. */
  async destroy(): Promise<void> {
    await Promise.all(this.nodes.map((node) => stopProcess(node.process)));
    process.removeListener('exit', this.#killOnExit);
    if (this.#dir) rmSync(this.#dir, { recursive: true, force: true });
  }

  #node(index: number): GaleraNode {
    const node = this.nodes[index];
    if (!node) throw new Error(`no Galera node ${index}`);
    return node;
  }

  #spawn(node: GaleraNode, extra: string[] = []): void {
    const members = this.nodes.map((member) => `127.0.0.1:${member.gcommPort}`).join(',');
    const providerOptions = [
      `gmcast.listen_addr=tcp://127.0.0.1:${node.gcommPort}`,
      `ist.recv_addr=127.0.0.1:${node.istPort}`,
      // The write-set cache is preallocated on disk: 128 MB by default, a test needs little.
      'gcache.size=32M',
      // A node is declared dead after 5 s of silence by default; on a busy 2-core machine a
      // starved node can miss that and the cluster splits. Tests never kill a node.
      'evs.suspect_timeout=PT30S',
      'evs.inactive_timeout=PT60S',
      'evs.install_timeout=PT60S',
    ].join(';');
    const log = openSync(join(node.dir, 'mariadbd.log'), 'a');
    node.process = spawn(
      MARIADBD,
      [
        '--no-defaults',
        `--datadir=${join(node.dir, 'data')}`,
        `--port=${node.port}`,
        `--socket=${join(node.dir, 'mariadb.sock')}`,
        `--pid-file=${join(node.dir, 'mariadb.pid')}`,
        '--bind-address=127.0.0.1',
        '--user=mysql',
        ...INNODB_OPTIONS,
        // What Galera requires of every node.
        '--wsrep_on=ON',
        `--wsrep_provider=${GALERA_PROVIDER}`,
        '--binlog_format=ROW',
        '--default_storage_engine=InnoDB',
        '--innodb_autoinc_lock_mode=2',
        `--wsrep_cluster_name=${this.#clusterName}`,
        `--wsrep_cluster_address=gcomm://${members}`,
        `--wsrep_node_name=${node.name}`,
        `--wsrep_node_address=127.0.0.1:${node.gcommPort}`,
        `--wsrep_provider_options=${providerOptions}`,
        // rsync is installed with the server; mariabackup is not. The joiner runs an rsync daemon here.
        '--wsrep_sst_method=rsync',
        `--wsrep_sst_receive_address=127.0.0.1:${node.sstPort}`,
        ...extra,
      ],
      { stdio: ['ignore', log, log] },
    );
    closeSync(log);
  }

  /** Polls the node (a fresh session each time: the server may not listen yet) until `check` holds. */
  async #waitFor(node: GaleraNode, check: (session: mysql.Connection) => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + START_DEADLINE_MS;
    let problem = 'not answering';
    while (Date.now() < deadline) {
      if (node.process && node.process.exitCode !== null)
        throw new Error(`${node.name} exited with ${node.process.exitCode}`);
      try {
        const session = await mysql.createConnection({ host: '127.0.0.1', port: node.port, user: 'root' });
        try {
          if (await check(session)) return;
          problem = 'condition not met';
        } finally {
          await session.end();
        }
      } catch (error) {
        problem = (error as Error).message;
      }
      await sleep(100);
    }
    throw new Error(`${node.name} not ready within ${START_DEADLINE_MS / 1000} s (${problem})`);
  }

  #waitUntilSynced(node: GaleraNode): Promise<void> {
    return this.#waitFor(
      node,
      async (session) =>
        (await status(session, 'wsrep_local_state_comment')) === 'Synced' &&
        (await status(session, 'wsrep_ready')) === 'ON',
    );
  }

  /**
   * The service's account, made on node 1 and replicated to the others (account statements are
   * replicated by Galera like DDL). It may create and use databases named orgs_*. Both host
   * spellings, since an anonymous ''@localhost would otherwise win for local connections.
   */
  async #createAccount(): Promise<void> {
    const root = await this.rootConnection(0);
    try {
      for (const host of ['127.0.0.1', 'localhost']) {
        await root.query(`CREATE USER '${ACCOUNT.user}'@'${host}' IDENTIFIED BY '${ACCOUNT.password}'`);
        await root.query(`GRANT ALL PRIVILEGES ON \`orgs\\_%\`.* TO '${ACCOUNT.user}'@'${host}'`);
      }
    } finally {
      await root.end();
    }
    for (const node of this.nodes) {
      await this.#waitFor(node, async () => {
        const session = await mysql.createConnection({ host: '127.0.0.1', port: node.port, ...ACCOUNT });
        await session.end();
        return true;
      });
    }
  }

  #logTail(node: GaleraNode): string {
    try {
      return readFileSync(join(node.dir, 'mariadbd.log'), 'utf8').split('\n').slice(-15).join('\n');
    } catch {
      return '(no log)';
    }
  }
}

async function status(session: mysql.Connection, name: string): Promise<string> {
  const [rows] = await session.query<mysql.RowDataPacket[]>('SHOW STATUS LIKE ?', [name]);
  return String(rows[0]?.Value ?? '');
}

async function stopProcess(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_DEADLINE_MS);
  await exited;
  clearTimeout(timer);
}
