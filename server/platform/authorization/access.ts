/**
 * The one authorization path of an operation in an organization (behaviour §3.2, §11). Each
 * operation declares what it needs where it is declared (rpc/procedures.ts): a permission, or only
 * membership. The platform builds an `OrganizationAccess` for the request and queues its guard, the
 * read of what the actor holds, before the operation's own statements (in-organization.ts explains how it
 * cannot be skipped). The operation is handed what the actor holds, to ask for more where its
 * rules do (the no-escalation rule, owner-only powers: rules.ts), never less.
 */
import type { QueryResult } from 'kysely';
import type { Compilable } from 'kysely';
import type { DbTimestamp, Sql } from '../database/schema.ts';
import { forbidden } from '../errors.ts';
import { SERVICE_PERMISSIONS, type RoleCatalogue, type ServicePermission } from '../role-catalogue.ts';
import { holdingRowsOfOne, holdingRowsOfTwo, holdingsByUser, NONE, type Holdings, type Holds } from './holdings.ts';
import { notInOrganization } from './memberships.ts';

/** An operation any member may do, whatever their role holds (reading their own permissions, leaving). */
export const ANY_MEMBER = 'any member';

/** What an operation needs of its actor in the organization. */
export type Requirement = ServicePermission | typeof ANY_MEMBER;

/** A person, known by their token's `sub`. */
export interface PersonActor {
  kind: 'person';
  userId: string;
}

/** Who acts. */
export type Actor = PersonActor;

/** Where a guard can be queued: reads outside a transaction, or a transaction (database/*.ts). */
export interface Guardable {
  readonly sql: Sql;
  guard<Row>(query: Compilable<Row>, check: (result: QueryResult<Row>) => void): void;
}

/** `held` includes `permission`, or the actor is told which one they lack. */
export function assertHolds(held: Holds, permission: ServicePermission): void {
  if (!held.has(permission)) {
    throw forbidden(
      `Neither your role nor your teams in this organization let you ${SERVICE_PERMISSIONS[permission]} (${permission})`,
    );
  }
}

/** An actor's access to one organization for one request, with what the guard last read. */
export class OrganizationAccess {
  readonly actor: Actor;
  readonly organizationId: string;
  readonly requirement: Requirement;
  /** The deployment's roles and permissions, which the actor's role is looked up in. */
  readonly roles: RoleCatalogue;
  #holdings: Holdings | undefined;
  #passed = false;
  #refusal: Error | undefined;
  /** Another user whose holdings the guard reads too, and what it read of them. */
  #also: { userId: string; holds?: Holds } | undefined;

  constructor(actor: Actor, organizationId: string, requirement: Requirement, roles: RoleCatalogue) {
    this.actor = actor;
    this.organizationId = organizationId;
    this.requirement = requirement;
    this.roles = roles;
  }

  /** The acting person's user id. */
  get userId(): string {
    return this.actor.userId;
  }

  /**
   * Queues the guard on `target`: the actor's holdings read at `now`, then checked against the
   * requirement, before anything read after it is handed back (or, in a transaction, committed).
   */
  guard(target: Guardable, now: DbTimestamp): void {
    this.#holdings = undefined;
    const { organizationId, actor } = this;
    // Built when it goes out: alsoRead may add a user until then.
    const query = {
      compile: () =>
        (this.#also
          ? holdingRowsOfTwo(target.sql, organizationId, actor.userId, this.#also.userId, now)
          : holdingRowsOfOne(target.sql, organizationId, actor.userId, now)
        ).compile(),
    };
    target.guard(query, (result) => {
      const byUser = holdingsByUser(this.roles, result.rows);
      if (this.#also) this.#also.holds = byUser.get(this.#also.userId) ?? NONE;
      const holdings = byUser.get(this.actor.userId);
      try {
        if (!holdings) throw notInOrganization();
        if (this.requirement !== ANY_MEMBER) assertHolds(holdings, this.requirement);
      } catch (refusal) {
        this.#refusal = refusal as Error;
        throw refusal;
      }
      this.#holdings = holdings;
      this.#passed = true;
    });
  }

  /** The refusal of a guard that ran and refused, to answer again whatever the operation answered. */
  get refusal(): Error | undefined {
    return this.#refusal;
  }

  /**
   * Has the guard not yet sent read what `userId` holds here too, in the same statement (the
   * permission check of another user); `read` tells what it read, once it has run.
   */
  alsoRead(userId: string): { read(): Holds | undefined } {
    this.#also ??= { userId };
    const also = this.#also;
    return { read: () => (also.userId === userId ? also.holds : undefined) };
  }

  /** Whether a guard has passed for this request: the operation was authorized. */
  get passed(): boolean {
    return this.#passed;
  }

  /** Whether the latest guard queued has run (and passed). */
  get ready(): boolean {
    return this.#holdings !== undefined;
  }

  /** What the actor holds, as the latest guard read it; only once it has run. */
  get holdings(): Holdings {
    if (!this.#holdings) throw new Error('The guard has not run: read or flush before asking what the actor holds');
    return this.#holdings;
  }
}
