/**
 * Which transactions may take a database connection now (CONTRACT 10: requests that wait on a
 * locked organization must not stop reads and other organizations from being served).
 *
 * - Changes to one organization run one at a time in this process: the others wait here, holding
 *   no connection, instead of each holding one while it waits for the organization's row lock. A
 *   locked organization therefore ties up at most one connection of this instance.
 * - Write transactions together hold at most `writeSlots` connections, fewer than the pool has:
 *   the rest are kept for reads, however many organizations are locked.
 * Every wait here ends by the deadline, with 503.
 */
import { E_TIMEOUT, Mutex, Semaphore, withTimeout, type MutexInterface } from 'async-mutex';
import { unavailable } from '../errors.ts';

export class Admission {
  readonly #writeSlots: Semaphore;
  /** One mutex per organization with a change running or waiting; removed when none is left. */
  readonly #organizations = new Map<string, { mutex: MutexInterface; users: number }>();

  constructor(writeSlots: number) {
    this.#writeSlots = new Semaphore(writeSlots);
  }

  /** Runs `work` when it is its organization's turn in this process (all of `work`, retries too). */
  async inTurn<T>(organizationId: string | undefined, deadline: number, work: () => Promise<T>): Promise<T> {
    if (organizationId === undefined) return work();
    let entry = this.#organizations.get(organizationId);
    if (!entry) this.#organizations.set(organizationId, (entry = { mutex: new Mutex(), users: 0 }));
    entry.users++;
    try {
      return await waitFor(withTimeout(entry.mutex, remaining(deadline)), work);
    } finally {
      if (--entry.users === 0) this.#organizations.delete(organizationId);
    }
  }

  /** Runs one transaction attempt with a write slot: held while it runs, not between attempts. */
  withWriteSlot<T>(deadline: number, work: () => Promise<T>): Promise<T> {
    return waitFor(withTimeout(this.#writeSlots, remaining(deadline)), work);
  }
}

const remaining = (deadline: number) => Math.max(1, deadline - Date.now());

async function waitFor<T>(
  lock: { runExclusive<R>(callback: () => Promise<R>): Promise<R> },
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await lock.runExclusive(work);
  } catch (error) {
    if (error === E_TIMEOUT) throw unavailable('Too many changes are waiting for the database, try again');
    throw error;
  }
}
