/**
 * What some tests need from the machine besides `npm ci`: Chromium, MariaDB's server run as root,
 * Galera, Redis (and the MariaDB test account, which tests/setup/global.ts looks for). A test whose
 * need is missing fails before it runs, with a message that says what to install, on a developer's
 * machine as in CI: a skipped test proves nothing, and a warning line among hundreds goes unread.
 * `.ci/run` installs and starts all of them.
 */
import { existsSync } from 'node:fs';
import { beforeAll } from 'vitest';

export const CHROMIUM = '/usr/bin/chromium';
export const MARIADBD = '/usr/sbin/mariadbd';
export const GALERA_PROVIDER = '/usr/lib/galera/libgalera_smm.so';
export const REDIS_SERVER = '/usr/bin/redis-server';
/** Galera's state transfer (`wsrep_sst_method=rsync`). */
const RSYNC = '/usr/bin/rsync';

/** The end of every message: what to install, or the script that installs it all. */
export function install(packages: string[]): string {
  const names = packages.map((name) => `\`${name}\``).join(' and ');
  const plural = packages.length > 1;
  return (
    `install Debian's ${names} package${plural ? 's' : ''} (apt-get install ${packages.join(' ')}), ` +
    `or run bash .ci/run as root, which installs ${plural ? 'them' : 'it'}`
  );
}

export const chromiumMissing = (): string | undefined =>
  existsSync(CHROMIUM) ? undefined : `Chromium is missing (${CHROMIUM}): ${install(['chromium'])}`;

/** For the tests that start, stop, kill or freeze MariaDB servers of their own. */
export function ownMariadbMissing(): string | undefined {
  if (!existsSync(MARIADBD)) return `MariaDB's server is missing (${MARIADBD}): ${install(['mariadb-server'])}`;
  if (process.getuid?.() !== 0) {
    return (
      `These tests start MariaDB servers of their own (${MARIADBD}), which needs root: ` +
      'run them as root, as bash .ci/run does'
    );
  }
  return undefined;
}

/** For the 3-node Galera cluster: MariaDB's server run as root, Galera's provider and rsync. */
export function galeraMissing(): string | undefined {
  const own = ownMariadbMissing();
  if (own) return own;
  const packages = [...(existsSync(GALERA_PROVIDER) ? [] : ['galera-4']), ...(existsSync(RSYNC) ? [] : ['rsync'])];
  if (packages.length === 0) return undefined;
  return `Galera is missing (${GALERA_PROVIDER} and ${RSYNC}, its state transfer): ${install(packages)}`;
}

export const redisServerMissing = (): string | undefined =>
  existsSync(REDIS_SERVER) ? undefined : `Redis is missing (${REDIS_SERVER}): ${install(['redis-server'])}`;

/**
 * Fails the tests of the enclosing describe block, before they and its later hooks run, when
 * `missing` says what the machine lacks. Call it first in the block.
 */
export function failWithout(missing: string | undefined): void {
  beforeAll(() => {
    if (missing !== undefined) throw new Error(missing);
  });
}
