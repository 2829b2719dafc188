/**
 * The one authorization path of an operation in an organization (behaviour §3.2, §11, §16). Each
 * operation declares what it needs where it is declared (rpc/procedures.ts): a permission, or only
 * membership. The platform builds an `OrganizationAccess` for the request and queues its guard, the
 * one read of what the actor holds, before the operation's own statements (in-organization.ts
 * explains how it cannot be skipped). The operation is handed what the actor holds, to ask for more
 * where its rules do (the no-escalation rule, owner-only powers: rules.ts), never less.
 *
 * The actor is a person (their membership, role and teams), an organization's API key (its role, in
 * its own organization only) or an application key (every permission, in every organization). A
 * key is found by the hash of its secret in the guard's own read (keys.ts), so it costs what a
 * person's check costs, and a key revoked a moment ago is refused at once.
 */
import type { Compilable, CompiledQuery, QueryResult } from 'kysely';
import type { DbTimestamp, Sql } from '../database/schema.ts';
import type { Db } from '../database/transaction.ts';
import { forbidden } from '../errors.ts';
import type { EventActor, NewestEventRead, OrganizationChange } from '../organization-changes.ts';
import { SERVICE_PERMISSIONS, type RoleCatalogue, type ServicePermission } from '../role-catalogue.ts';
import type { GuardCheck, ScalarGuard } from '../database/guarded-reads.ts';
import {
  Holdings,
  holdingRowsOfOne,
  holdingRowsOfOneInChange,
  holdingRowsOfTwo,
  holdingRowsOfTwoInChange,
  holdingsByUser,
  NONE,
  roleOfOne,
  roleRowOfOne,
  type HoldingRow,
  type HoldingRowInChange,
  type Holds,
} from './holdings.ts';
import {
  applicationKeyInOrganization,
  invalidKey,
  isLive,
  organizationKeyAsColumn,
  organizationKeyRow,
  sameHash,
  useToRecord,
  type KeyUse,
} from './keys.ts';
import { notInOrganization } from './memberships.ts';

/** An operation any member may do, whatever their role holds (reading their own permissions, leaving). */
export const ANY_MEMBER = 'any member';

/**
 * What an operation needs of its actor in the organization: a permission, any one of several (the
 * directory's settings: `directory:sync` or `domains:manage`, behaviour §18), or membership.
 */
export type Requirement = ServicePermission | readonly [ServicePermission, ...ServicePermission[]] | typeof ANY_MEMBER;

/** The permissions a requirement accepts, any one of which will do; none for ANY_MEMBER. */
export const acceptedBy = (requirement: Requirement): readonly ServicePermission[] =>
  requirement === ANY_MEMBER ? [] : typeof requirement === 'string' ? [requirement] : requirement;

/** How a requirement is named in a refusal and in the list of operations: `a:b` or `a:b or c:d`. */
export const requirementName = (requirement: Requirement): string =>
  requirement === ANY_MEMBER ? ANY_MEMBER : acceptedBy(requirement).join(' or ');

/** `held` meets `requirement`: it holds one of the permissions accepted (any, for ANY_MEMBER). */
const meets = (held: Holds, requirement: Requirement): boolean =>
  requirement === ANY_MEMBER || acceptedBy(requirement).some((permission) => held.has(permission));

/** A person, known by their token's `sub`. */
export interface PersonActor {
  kind: 'person';
  userId: string;
}

/** A key, by the hash of its secret: found, and known to be live, by the guard. */
export interface KeyActor {
  kind: 'organization_key' | 'application_key';
  secretHash: string;
}

/** Who acts. */
export type Actor = PersonActor | KeyActor;

/**
 * Where a guard can be queued: reads outside a transaction, or a transaction (database/*.ts); the
 * reads may send a guard of one value as a column of a read (`scalar`, database/guarded-reads.ts).
 */
export interface Guardable {
  readonly sql: Sql;
  guard<Row>(query: Compilable<Row>, check: (result: QueryResult<Row>) => void, scalar?: ScalarGuard<Row>): void;
}

/**
 * Reads outside a transaction, whose guard's check may ask for a follow-up, and whose guard may go
 * as a column of a read (database/guarded-reads.ts).
 */
export interface FollowingGuardable {
  readonly sql: Sql;
  guard<Row>(query: Compilable<Row>, check: GuardCheck<Row>, scalar?: ScalarGuard<Row>): void;
}

/** The membership's role, as the first guard of the reads reads it (holdings.ts, roleRowOfOne). */
type RoleRow = { user_id: string; role: string };

/** `held` meets `requirement`, or the actor is told what they lack. */
export function assertHolds(held: Holds, requirement: Exclude<Requirement, typeof ANY_MEMBER>): void {
  if (!meets(held, requirement)) {
    const what = acceptedBy(requirement)
      .map((permission) => SERVICE_PERMISSIONS[permission])
      .join(' or ');
    throw forbidden(
      `Neither your role nor your teams in this organization let you ${what} (${requirementName(requirement)})`,
    );
  }
}

const noSuchOrganization = () => forbidden('No organization has this id');

/** An actor's access to one organization for one request, with what the guard last read. */
/** What an operation's input needs besides its requirement, most of the time (OrganizationAccess.alsoNeeds). */
const NOTHING_MORE: readonly ServicePermission[] = [];

export class OrganizationAccess {
  readonly actor: Actor;
  readonly organizationId: string;
  readonly requirement: Requirement;
  /** What the actor needs besides `requirement` for what this request's input holds (OrganizationOperation.whenGiven). */
  readonly alsoNeeds: readonly ServicePermission[];
  /** The deployment's roles and permissions, which the actor's role is looked up in. */
  readonly roles: RoleCatalogue;
  #holdings: Holdings | undefined;
  /** Whether #holdings has the actor's teams, or only their role (guardReads). */
  #withTeams = false;
  /** Whether the guard of the reads, when it goes out, reads the teams too (readTeamsToo). */
  #teamsWanted = false;
  #passed = false;
  #refusal: Error | undefined;
  /** The key the guard found, once it has run (keys only). */
  #keyId: string | undefined;
  /** The key's use to record after the request, if its `last_used_at` is stale. */
  #keyUse: KeyUse | undefined;
  /** Another user whose holdings the guard reads too, and what it read of them (persons only). */
  #also: { userId: string; holds?: Holds } | undefined;

  constructor(
    actor: Actor,
    organizationId: string,
    requirement: Requirement,
    roles: RoleCatalogue,
    alsoNeeds: readonly ServicePermission[] = NOTHING_MORE,
  ) {
    this.actor = actor;
    this.organizationId = organizationId;
    this.requirement = requirement;
    this.roles = roles;
    this.alsoNeeds = alsoNeeds;
  }

  /** The acting person's user id; null for a key. */
  get userId(): string | null {
    return this.actor.kind === 'person' ? this.actor.userId : null;
  }

  /** Who the organization's events name as the actor; a key's id is known once the guard has run. */
  get eventActor(): EventActor {
    if (this.actor.kind === 'person') return { userId: this.actor.userId, keyId: null };
    if (this.#keyId === undefined) throw new Error('The guard has not run: the key is not known yet');
    return { userId: null, keyId: this.#keyId };
  }

  /**
   * What a change is refused with when its organization does not exist: 403, as for a non-member
   * (behaviour §3.2). An application key, which acts in every organization, is told why.
   */
  missingOrganization = (): Error =>
    this.actor.kind === 'application_key' ? noSuchOrganization() : notInOrganization();

  /**
   * Queues the guard on `target`: what the actor holds, read at `now`, then checked against the
   * requirement, before anything read after it is handed back (or, in a transaction, committed).
   */
  guard(target: Guardable, now: DbTimestamp, change?: OrganizationChange): void {
    this.#holdings = undefined;
    this.#withTeams = true;
    const { actor } = this;
    if (actor.kind === 'person') {
      // Built when it goes out: alsoRead may add a user until then.
      const query = { compile: () => this.#wholeGuard(target.sql, actor.userId, now, change).compile() };
      // The row's type said here: type-aware lint infers it from the query's, which it cannot resolve.
      target.guard(query, (result: QueryResult<HoldingRowInChange>) => {
        if (change) change.newestEventId = result.rows[0]?.newest_event_id ?? null;
        this.#check(() => this.#personHoldings(actor.userId, result.rows));
      });
    } else if (actor.kind === 'organization_key') {
      target.guard(
        organizationKeyRow(target.sql, actor.secretHash),
        (result) => this.#check(() => this.#organizationKeyHoldings(actor.secretHash, result.rows[0])),
        organizationKeyAsColumn(target.sql, actor.secretHash),
      );
    } else {
      target.guard(applicationKeyInOrganization(target.sql, actor.secretHash, this.organizationId), (result) =>
        this.#check(() => this.#applicationKeyHoldings(actor.secretHash, result.rows[0])),
      );
    }
  }

  /**
   * The guard of reads outside a transaction: for a person, their role first, on its own (holdings.ts,
   * roleRowOfOne). A role of the deployment that holds the requirement passes with what the role holds,
   * the teams left unread (completeWithTeams reads them when an operation asks); any other role (the
   * organization's own, or one that lacks it) is followed by the whole read of what the member holds
   * before anything read is handed back. Most reads are by members whose role answers them, and for
   * those the database reads one table instead of four (docs/performance.md, "Measured choices in the
   * code"). Keys and a guard that reads another user too go as `guard` does.
   */
  guardReads(target: FollowingGuardable, now: DbTimestamp): void {
    const { actor } = this;
    if (actor.kind !== 'person') return this.guard(target, now);
    this.#holdings = undefined;
    this.#withTeams = false;
    let byRole = false;
    // Decided as the guard goes out: alsoRead and readTeamsToo may ask for the whole read until then.
    const decideByRole = () => (byRole = !this.#also && !this.#teamsWanted);
    // Either statement's rows: the role's alone, or the whole read's (HoldingRow).
    const query = {
      compile: (): CompiledQuery<RoleRow | HoldingRow> =>
        decideByRole()
          ? roleRowOfOne(target.sql, this.organizationId, actor.userId, now).compile()
          : this.#wholeGuard(target.sql, actor.userId, now).compile(),
    };
    // The role alone can go as a column of the read (guarded-reads.ts).
    const asReadColumn: ScalarGuard<RoleRow | HoldingRow> = {
      asColumn: () =>
        decideByRole() ? roleOfOne(target.sql, this.organizationId, actor.userId, now).compile() : undefined,
      resultOf: (role) => ({ rows: role === null ? [] : [{ user_id: actor.userId, role: role as string }] }),
    };
    target.guard(
      query,
      (result) => {
        if (!byRole) return this.completeWithTeams(result.rows as HoldingRow[]);
        const row = result.rows[0];
        if (!row) return this.#check(() => this.#personHoldings(actor.userId, []));
        const ofRole = this.roles.fixedRoles.get(row.role)?.permissions;
        if (ofRole && this.#suffices(ofRole)) {
          return this.#check(() => new Holdings(row.role, ofRole, [], []));
        }
        return {
          query: holdingRowsOfOne(target.sql, this.organizationId, actor.userId, now),
          check: (whole) => this.completeWithTeams(whole.rows as HoldingRow[]),
        };
      },
      asReadColumn,
    );
  }

  /**
   * What a person's guard reads in whole: their holdings, and another user's with alsoRead; in a
   * change, the organization's newest event too (newestEventRead).
   */
  #wholeGuard(sql: Sql, userId: string, now: DbTimestamp, change?: OrganizationChange) {
    const { organizationId } = this;
    if (change) {
      return this.#also
        ? holdingRowsOfTwoInChange(sql, organizationId, userId, this.#also.userId, now)
        : holdingRowsOfOneInChange(sql, organizationId, userId, now);
    }
    return this.#also
      ? holdingRowsOfTwo(sql, organizationId, userId, this.#also.userId, now)
      : holdingRowsOfOne(sql, organizationId, userId, now);
  }

  /**
   * How a change of this actor learns the organization's newest event (../organization-changes.ts):
   * a person's guard reads it as a column, which `guard` given the change sets; a key's guard
   * reads the key's row, not the organization's, and the read goes on its own.
   */
  get newestEventRead(): NewestEventRead {
    return this.actor.kind === 'person' ? 'with the guard' : 'own statement';
  }

  /** Has a guard of the reads not sent yet read the actor's teams too: the operation will ask for them. */
  readTeamsToo(): void {
    this.#teamsWanted = true;
  }

  /** Whether what the guard read includes the actor's teams (see guardReads). */
  get withTeams(): boolean {
    return this.#withTeams;
  }

  /** Completes a person's holdings, read by guardReads from their role only, with the whole read's rows. */
  completeWithTeams(rows: readonly HoldingRow[]): void {
    const { actor } = this;
    if (actor.kind !== 'person') return;
    this.#withTeams = true;
    this.#check(() => this.#personHoldings(actor.userId, rows));
  }

  /** Whether `held` meets the requirement and holds what the input needs besides. */
  #suffices(held: Holds): boolean {
    return meets(held, this.requirement) && this.alsoNeeds.every((permission) => held.has(permission));
  }

  /** The guard's check: what the actor holds must meet the requirement and what the input needs; a refusal is kept. */
  #check(holdingsOf: () => Holdings): void {
    try {
      const holdings = holdingsOf();
      if (this.requirement !== ANY_MEMBER) assertHolds(holdings, this.requirement);
      for (const permission of this.alsoNeeds) assertHolds(holdings, permission);
      this.#holdings = holdings;
      this.#passed = true;
    } catch (refusal) {
      this.#refusal = refusal as Error;
      throw refusal;
    }
  }

  #personHoldings(userId: string, rows: readonly HoldingRow[]): Holdings {
    const byUser = holdingsByUser(this.roles, rows);
    if (this.#also) this.#also.holds = byUser.get(this.#also.userId) ?? NONE;
    const holdings = byUser.get(userId);
    if (!holdings) throw notInOrganization();
    return holdings;
  }

  #organizationKeyHoldings(secretHash: string, row: KeyRow | undefined): Holdings {
    const now = new Date();
    if (!row || !sameHash(row.secret_hash, secretHash) || !isLive(row, now)) throw invalidKey();
    if (row.organization_id !== this.organizationId) throw forbidden('This API key belongs to another organization');
    this.#keyId = row.id;
    this.#keyUse = useToRecord('api_keys', row.id, row.last_used_at, now);
    return new Holdings(row.role, this.roles.permissionsOf(row.role, row.permissions) ?? NONE, [], []);
  }

  #applicationKeyHoldings(secretHash: string, row: ApplicationKeyRow | undefined): Holdings {
    const now = new Date();
    if (!row || !sameHash(row.secret_hash, secretHash) || !isLive(row, now)) throw invalidKey();
    if (row.organization_id === null) throw noSuchOrganization();
    this.#keyId = row.id;
    this.#keyUse = useToRecord('application_keys', row.id, row.last_used_at, now);
    // An application key acts as an owner would, with the application's own powers besides.
    return new Holdings('owner', this.roles.applicationKeyPermissions, [], []);
  }

  /** The key's use to record after the request, if its `last_used_at` is stale. */
  get keyUse(): KeyUse | undefined {
    return this.#keyUse;
  }

  /**
   * Has the guard not yet sent read what `userId` holds here too, in the same statement (the
   * permission check of another user); `read` tells what it read, once it has run. Only a person's
   * guard reads memberships.
   */
  alsoRead(userId: string): { read(): Holds | undefined } {
    if (this.actor.kind !== 'person') return { read: () => undefined };
    this.#also ??= { userId };
    const also = this.#also;
    return { read: () => (also.userId === userId ? also.holds : undefined) };
  }

  /** Whether a guard has passed for this request: the operation was authorized. */
  get passed(): boolean {
    return this.#passed;
  }

  /** The refusal of a guard that ran and refused, to answer again whatever the operation answered. */
  get refusal(): Error | undefined {
    return this.#refusal;
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

/** The row of an organization key, as the guard reads it. */
type KeyRow = {
  id: string;
  organization_id: string;
  role: string;
  secret_hash: string;
  expires_at: DbTimestamp | null;
  revoked_at: DbTimestamp | null;
  last_used_at: DbTimestamp | null;
  permissions: string | null;
};

/** The row of an application key in an organization, as the guard reads it. */
type ApplicationKeyRow = {
  id: string;
  secret_hash: string;
  revoked_at: DbTimestamp | null;
  last_used_at: DbTimestamp | null;
  organization_id: string | null;
};

/**
 * What a key holds in an organization now, or undefined when it may not act there (unknown,
 * revoked, expired, another organization's): its guard, run on its own. For what re-checks a key
 * outside a request, as the event feed does before each batch it hands to a key's subscription.
 */
export async function keyHoldings(
  db: Db,
  actor: KeyActor,
  organizationId: string,
  roles: RoleCatalogue,
): Promise<Holdings | undefined> {
  const access = new OrganizationAccess(actor, organizationId, ANY_MEMBER, roles);
  const reads = db.guardedReads();
  access.guardReads(reads, reads.timestamp(new Date()));
  try {
    await reads.settle();
  } catch (error) {
    if (access.refusal) return undefined;
    throw error;
  }
  return access.holdings;
}
