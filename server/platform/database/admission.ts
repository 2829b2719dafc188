/**
 * Which transactions may take a database connection now (behaviour §10: requests that wait on a
 * locked organization must not stop reads and other organizations from being served).
 *
 * - Changes to one organization run at most `changesPerOrganization` at a time in this process
 *   (two on MySQL and MariaDB, one on the embedded database): the others wait here, holding no
 *   connection, instead of each holding one while it waits for the organization's row lock.
 * - A change may wait in the database for its organization's lock only behind another change of
 *   this process that is under way, and at most half the write slots wait so at once; every other
 *   change takes the lock without waiting (organization-changes.ts) and is tried again after a
 *   pause when it is held. So an organization locked by anyone else ties up no connection for long,
 *   while the next change of a busy organization is already queued on the lock when the change
 *   before it commits: the lock passes on inside the database, without a round trip through this
 *   process (with one change at a time, the next would send its first statements only once the
 *   commit has come back here).
 * - Write transactions together hold at most `writeSlots` connections, fewer than the pool has:
 *   the rest are kept for reads, however many organizations are locked.
 * Every wait here ends by the deadline, with 503.
 */
import { unavailable } from '../errors.ts';
import { Gate } from './gate.ts';

/** What a wait for a slot that outlasts its deadline ends with. */
export const tooManyWaiting = () => unavailable('Too many changes are waiting for the database, try again');

/** This process's changes of one organization: those admitted, and those under way (an attempt running). */
export interface Turn {
  readonly admitted: Gate;
  underWay: number;
}

export interface AdmissionLimits {
  writeSlots: number;
  changesPerOrganization: number;
}

export class Admission {
  readonly #writeSlots: Gate;
  readonly #changesPerOrganization: number;
  readonly #lockWaitersAtMost: number;
  #lockWaiters = 0;
  /** One turn per organization with a change running or waiting; removed when none is left. */
  readonly #organizations = new Map<string, Turn>();

  constructor({ writeSlots, changesPerOrganization }: AdmissionLimits) {
    this.#writeSlots = new Gate(writeSlots, tooManyWaiting);
    this.#changesPerOrganization = changesPerOrganization;
    // Changes waiting for a lock hold connections: at most half the write slots, so that changes of
    // other organizations still get theirs.
    this.#lockWaitersAtMost = Math.max(1, Math.floor(writeSlots / 2));
  }

  /**
   * Runs `work` (all of it, retries too) when its organization may have one more change under way
   * in this process.
   */
  async inTurn<T>(
    organizationId: string | undefined,
    deadline: number,
    work: (turn: Turn | undefined) => Promise<T>,
  ): Promise<T> {
    if (organizationId === undefined) return work(undefined);
    let turn = this.#organizations.get(organizationId);
    if (!turn) {
      turn = { admitted: new Gate(this.#changesPerOrganization, tooManyWaiting), underWay: 0 };
      this.#organizations.set(organizationId, turn);
    }
    try {
      return await turn.admitted.run(deadline, () => work(turn));
    } finally {
      if (turn.admitted.idle) this.#organizations.delete(organizationId);
    }
  }

  /**
   * Runs one transaction attempt with a write slot (held while it runs, not between attempts),
   * telling it whether it may wait in the database for its organization's lock (module comment).
   */
  withWriteSlot<T>(turn: Turn | undefined, deadline: number, work: (waitsForLock: boolean) => Promise<T>): Promise<T> {
    return this.#writeSlots.run(deadline, async () => {
      const waitsForLock = turn !== undefined && turn.underWay > 0 && this.#lockWaiters < this.#lockWaitersAtMost;
      if (turn) turn.underWay++;
      if (waitsForLock) this.#lockWaiters++;
      try {
        return await work(waitsForLock);
      } finally {
        if (turn) turn.underWay--;
        if (waitsForLock) this.#lockWaiters--;
      }
    });
  }
}
