/**
 * What an operation in an organization is handed by the platform (rpc/procedures.ts) instead of
 * the database: reads and changes that cannot skip the actor's authorization.
 *
 * - `reads`: reads outside a transaction whose query builder only builds (database/guarded-reads.ts).
 *   The guard, the read of what the actor holds, is queued first: it goes out with the operation's
 *   first read, in the same round trip, and its check runs before that read's rows come back.
 * - `change(work)`: the organization's transaction. Every attempt takes the organization's row
 *   first (organization-changes.ts), then queues the guard, so what the actor holds is read under
 *   the lock that every change of the organization takes; it goes out with the work's first read,
 *   and the transaction never commits before its check has passed (unit-of-work.ts, Tx.guard).
 * - `settle()`, called by the platform after the operation: an operation that read nothing and
 *   changed nothing (or failed before it did) has its guard run then, so that its answer, a 400
 *   included, is given only to an actor who may ask (403 first).
 */
import type { Db, Tx } from '../database/transaction.ts';
import type { GuardedReads } from '../database/guarded-reads.ts';
import { takeOrganization, type OrganizationChange } from '../organization-changes.ts';
import type { OrganizationAccess } from './access.ts';
import { holdingRowsOfOne, holdingsByUser, NONE, type Holdings, type Holds } from './holdings.ts';
import { nowFor } from './memberships.ts';
import { confirmSlug, type SlugMoved } from './slugs.ts';

/** A change of the organization in its transaction, with what the actor holds under its lock. */
export interface GuardedChange extends OrganizationChange {
  /** What the actor holds, read under the organization's lock (sends what is queued if need be). */
  held(): Promise<Holdings>;
}

export class InOrganization {
  readonly access: OrganizationAccess;
  readonly reads: GuardedReads;
  readonly #db: Db;
  /** The refusal of a kept slug's confirmation (slugs.ts), when it refused. */
  #slugMoved: SlugMoved | undefined;
  readonly #keptSlug: string | undefined;

  /**
   * `keptSlug`: the organization was named by a slug and its id taken from what this instance kept
   * (slugs.ts); the reads' first guard confirms it, and the operation must only read.
   */
  constructor(db: Db, access: OrganizationAccess, keptSlug?: string) {
    this.#db = db;
    this.access = access;
    this.reads = db.guardedReads();
    this.#keptSlug = keptSlug;
    if (keptSlug !== undefined) {
      confirmSlug(this.reads, keptSlug, access.organizationId, (refusal) => (this.#slugMoved = refusal));
    }
    access.guardReads(this.reads, this.reads.timestamp(new Date()));
  }

  get organizationId(): string {
    return this.access.organizationId;
  }

  /**
   * What the actor holds, as the guard of the reads read it, with their teams: read now when the
   * guard needed only their role (access.ts, guardReads).
   */
  async held(): Promise<Holdings> {
    const { access } = this;
    if (!access.ready) {
      access.readTeamsToo();
      await this.reads.settle();
    }
    if (!access.withTeams && access.userId !== null) {
      access.completeWithTeams(
        await this.reads.all(holdingRowsOfOne(this.reads.sql, this.organizationId, access.userId, nowFor(this.reads))),
      );
    }
    return access.holdings;
  }

  /** The actor's role here, which the guard of the reads always reads. */
  async role(): Promise<string> {
    if (!this.access.ready) await this.reads.settle();
    return this.access.holdings.role;
  }

  /**
   * What another user holds in the organization (nothing when they are not a member), read with the
   * guard when it has not gone out yet, else on its own.
   */
  async holdingsOf(userId: string): Promise<Holds> {
    if (userId === this.access.userId) return this.held();
    if (this.reads.unsettled) {
      const also = this.access.alsoRead(userId);
      await this.reads.settle();
      const holds = also.read();
      if (holds) return holds;
    }
    const rows = await this.reads.all(
      holdingRowsOfOne(this.reads.sql, this.organizationId, userId, nowFor(this.reads)),
    );
    return holdingsByUser(this.access.roles, rows).get(userId) ?? NONE;
  }

  /**
   * Runs `work` in the organization's transaction (see the module comment); an unknown
   * organization is refused like a non-member, 403.
   */
  change<T>(work: (tx: Tx, change: GuardedChange) => Promise<T>): Promise<T> {
    const { access } = this;
    if (this.#keptSlug !== undefined) throw new Error('An organization named by a kept slug may only be read');
    return this.#db.transaction(
      (tx) => {
        const taken = takeOrganization(
          tx,
          access.organizationId,
          () => access.eventActor,
          access.missingOrganization,
          access.newestEventRead,
        );
        access.guard(tx, tx.timestamp(), taken);
        const change: GuardedChange = Object.assign(taken, {
          held: async () => {
            if (!access.ready) await tx.flush();
            return access.holdings;
          },
        });
        return work(tx, change);
      },
      { organizationId: access.organizationId },
    );
  }

  /** A unique index refused a write of the change (a duplicate membership, name, key…). */
  isUniqueViolation(error: unknown): boolean {
    return this.#db.isUniqueViolation(error);
  }

  /**
   * Runs the guard now unless one has passed (see the module comment); throws its refusal. Nothing
   * to wait for once a guard has passed, as it has by the end of most operations.
   */
  settle(): Promise<unknown> | undefined {
    if (this.#slugMoved) throw this.#slugMoved;
    if (this.access.passed) return undefined;
    if (this.access.refusal) throw this.access.refusal;
    if (!this.reads.unsettled) this.access.guardReads(this.reads, this.reads.timestamp(new Date()));
    return this.reads.settle();
  }
}
