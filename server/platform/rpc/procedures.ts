/**
 * Who may call a procedure, said by the builder it starts from (behaviour §3, §16): a person acting
 * on what is their own (`callerProcedure`), anyone signed in, a person or a key (`anyCallerProcedure`), a creator (the token's role, or the application's key),
 * the application's key alone (`applicationProcedure`), or an actor in an organization, a person or
 * a key, holding what the procedure names (`organizationProcedure`). Each adds what it proved to the
 * context, so a handler holds no permission ifs, and each records its access in the procedure's
 * meta, so that every operation's permission can be listed (tests/unit/permissions.test.ts).
 */
import { TRPCError } from '@trpc/server';
import type { z } from 'zod';
import { organizationPathInput, organizationSlugPathInput } from '../../../shared/organizations.ts';
import { organizationIdSchema } from '../../../shared/fields.ts';
import type { Caller, PersonCaller } from '../auth/tokens.ts';
import { badRequest, forbidden } from '../errors.ts';
import { ANY_MEMBER, OrganizationAccess, type Actor, type Requirement } from '../authorization/access.ts';
import { InOrganization } from '../authorization/in-organization.ts';
import { recordKeyUse, withLiveKey, type KeyUse } from '../authorization/keys.ts';
import { keptIdOfSlug, organizationIdBySlug, SlugMoved } from '../authorization/slugs.ts';
import type { Db } from '../database/transaction.ts';
import { idempotencyHook } from '../idempotency.ts';
import { accessAnswers, enterKeyRequest } from '../requests-in-flight.ts';
import type { Context } from './context.ts';
import { idempotentRequest } from './idempotency.ts';
import { publicProcedure } from './init.ts';
import type { ServicePermission } from '../role-catalogue.ts';
import { inProcedureSpan, tagOrganization } from '../tracing/spans.ts';

/** Whose Idempotency-Keys a request's are (behaviour §10): a person's, or a key's. */
const idempotencyOwner = (caller: Caller) =>
  caller.kind === 'person' ? caller.userId : `${caller.kind}:${caller.secretHash}`;

/** What a procedure's one middleware is given by tRPC, of what authentication reads. */
interface Call {
  ctx: Context;
  type: string;
  path: string;
  getRawInput: () => Promise<unknown>;
}

/**
 * A caller with a valid bearer token or a key's secret (behaviour §2), handed to `then` with the
 * database the operation uses: on a change that carries an Idempotency-Key, one that records its
 * answer for the key. Every procedure's span (platform/tracing/) starts here.
 *
 * Each kind of procedure below calls this from its own one middleware rather than stacking a
 * middleware on a shared authenticated one: every layer of tRPC's middleware chain is two async
 * calls and two copies of the call's options per request (docs/performance.md, "Measured choices
 * in the code").
 */
function authenticated<Result extends { ok: boolean }>(
  { ctx, type, path, getRawInput }: Call,
  then: (caller: Caller, db: Db) => Promise<Result>,
): Promise<Result> {
  const withCaller = (caller: Caller): Promise<Result> => {
    // A stream is not waited for: it is authorized when it starts, and lasts.
    if (type !== 'subscription') enterKeyRequest(ctx.requestsInFlight, caller, ctx.answering);
    const header = ctx.idempotencyKeyHeader;
    if (type !== 'mutation' || header === undefined) return then(caller, ctx.db);
    return idempotentRequest(ctx, header, idempotencyOwner(caller), path, getRawInput).then((idempotency) =>
      then(
        caller,
        ctx.db.withChangeHook(idempotencyHook(idempotency, ctx.keysInFlight), () => {
          ctx.responseHeaders['idempotency-replayed'] = 'true';
        }),
      ),
    );
  };
  // No async function: a caller the HTTP layer verified goes on without a promise of its own here.
  return inProcedureSpan(path, type, () =>
    ctx.verifiedCaller ? withCaller(ctx.verifiedCaller) : ctx.verifyToken(ctx.authorization).then(withCaller),
  );
}

/** Logs a key's use that could not be recorded (authorization/keys.ts's recordKeyUse). */
const useRecordFailed = (ctx: Context) => (error: unknown) =>
  ctx.log.error({ err: error }, 'recording a key use failed');

/**
 * Writes a key's `last_used_at` when it is stale (behaviour §16), once the request is answered, in a
 * statement of its own whose failure costs only the minute's precision.
 */
function recordUse(ctx: Context, db: Db, use: KeyUse | undefined): void {
  if (use) recordKeyUse(db, use).catch(useRecordFailed(ctx));
}

/** A key calling what belongs to a person: refused (behaviour §16), once it is known to be a live one. */
const refusedKey = (ctx: Context, db: Db, caller: Exclude<Caller, PersonCaller>): Promise<never> =>
  withLiveKey(db, caller, useRecordFailed(ctx), () => {
    throw forbidden("An API key acts on its organization's operations only, not on what belongs to a person");
  });

/** A person acting on what is their own: their record, their organizations, invitations, teams. */
export const callerProcedure = publicProcedure
  .meta({ access: 'caller' })
  .use((call) =>
    authenticated(call, (caller, db) =>
      caller.kind === 'person' ? call.next({ ctx: { caller, db } }) : refusedKey(call.ctx, db, caller),
    ),
  );

/**
 * Any signed-in caller, a person or a live key: what is the deployment's, neither a person's own nor
 * an organization's (the permission catalogue, which a key that manages roles reads as a person does).
 */
export const anyCallerProcedure = publicProcedure
  .meta({ access: 'anyone' })
  .use((call) =>
    authenticated(call, (caller, db) =>
      caller.kind === 'person'
        ? call.next({ ctx: { caller, db } })
        : withLiveKey(db, caller, useRecordFailed(call.ctx), () => call.next({ ctx: { caller, db } })),
    ),
  );

/** The token's role must be owner or admin (behaviour §3.1), unless REQUIRE_CREATOR_ROLE is off. */
function assertCreatorRole(caller: PersonCaller, requireRole: boolean): void {
  if (requireRole && caller.tokenRole !== 'owner' && caller.tokenRole !== 'admin') {
    throw forbidden('This action needs a token with role owner or admin');
  }
}

/** POST /users: a person whose token's role allows creating (behaviour §3.1). */
export const creatorProcedure = publicProcedure.meta({ access: 'creator' }).use((call) =>
  authenticated(call, (caller, db) => {
    if (caller.kind !== 'person') return refusedKey(call.ctx, db, caller);
    assertCreatorRole(caller, call.ctx.settings.REQUIRE_CREATOR_ROLE);
    return call.next({ ctx: { caller, db } });
  }),
);

/** Who creates an organization: a person (their token's role) or the application's key. */
export type Creator = { kind: 'person'; userId: string } | { kind: 'application_key'; keyId: string };

/** POST /organizations: a person whose token's role allows creating, or the application's key (behaviour §16). */
export const organizationCreatorProcedure = publicProcedure.meta({ access: 'creator' }).use((call) =>
  authenticated(call, (caller, db) => {
    const as = (creator: Creator) => call.next({ ctx: { caller, db, creator } });
    if (caller.kind === 'person') {
      assertCreatorRole(caller, call.ctx.settings.REQUIRE_CREATOR_ROLE);
      return as({ kind: 'person', userId: caller.userId });
    }
    return withLiveKey(db, caller, useRecordFailed(call.ctx), (keyId) => {
      if (caller.kind !== 'application_key') {
        throw forbidden("An organization's API key cannot create organizations; the application's key can");
      }
      return as({ kind: 'application_key', keyId });
    });
  }),
);

/** The application's own operations across organizations (behaviour §16): its keys alone. */
export const applicationProcedure = publicProcedure.meta({ access: 'application' }).use((call) =>
  authenticated(call, async (caller, db) => {
    const refused = () =>
      forbidden("This operation is the application's: it needs an application key (npm run app-key)");
    if (caller.kind === 'person') throw refused();
    return withLiveKey(db, caller, useRecordFailed(call.ctx), (applicationKeyId) => {
      if (caller.kind !== 'application_key') throw refused();
      return call.next({ ctx: { caller, db, applicationKeyId } });
    });
  }),
);

function organizationIdFromHeader(header: string | string[] | undefined): string {
  const problem =
    header === undefined
      ? 'Required'
      : Array.isArray(header) || !organizationIdSchema.safeParse(header).success
        ? 'Must be one organization id (a UUID)'
        : undefined;
  if (problem) throw badRequest('Missing or invalid organization_id header', [{ field: 'organization_id', problem }]);
  return (header as string).toLowerCase();
}

/** What an operation in an organization declares: where the organization is named, and what it needs. */
export interface OrganizationOperation {
  /**
   * Where the organization is named: the `organization_id` header, `{organization_id}` in the path,
   * the input, or its `{slug}` in the path.
   */
  from: 'header' | 'path' | 'input' | 'slug';
  /** The one permission the operation needs, or ANY_MEMBER. */
  may: Requirement;
  /**
   * Acting on oneself needs only membership (leaving, leaving a team, checking one's own
   * permissions): `field` is the input field naming the user acted on, which names the actor when
   * it is absent too if `absentMeansSelf`.
   */
  orSelf?: { field: string; absentMeansSelf?: boolean };
  /**
   * A field of the input that, given (even as null), needs a permission besides `may` (the
   * organization's private metadata needs `metadata:private`). The guard checks it with `may`, so
   * a caller who may not give the field is refused (403) whatever it holds (behaviour §3.2).
   */
  whenGiven?: { field: string; may: ServicePermission };
  /**
   * The operation answers who may do what (the permission check and read, behaviour §11): a change
   * of the organization on this instance is answered only after the answers under way.
   */
  answersAccess?: true;
}

/** Whether the raw input names the actor as the one acted on (see OrganizationOperation.orSelf). */
function namesActor(rawInput: unknown, orSelf: NonNullable<OrganizationOperation['orSelf']>, actor: Actor): boolean {
  const named = (rawInput as Record<string, unknown> | undefined)?.[orSelf.field];
  if (named === undefined) return orSelf.absentMeansSelf === true;
  return actor.kind === 'person' && named === actor.userId;
}

/** What the raw input needs besides the operation's permission (see OrganizationOperation.whenGiven). */
function neededFor(rawInput: unknown, whenGiven: NonNullable<OrganizationOperation['whenGiven']>): ServicePermission[] {
  const given = (rawInput as Record<string, unknown> | undefined)?.[whenGiven.field];
  return given === undefined ? [] : [whenGiven.may];
}

/**
 * The organization scope of the request (authorization/in-organization.ts), in the context in place
 * of the database: the operation reads and changes only through it, after the guard. After the
 * operation, the guard runs if nothing ran it, and a refusal replaces whatever was answered (order:
 * token, organization id, permission, body). A subscription is authorized before it starts.
 */
async function inOrganization<Result extends { ok: boolean }>(
  { ctx, type, getRawInput }: Call,
  caller: Caller,
  db: Db,
  operation: OrganizationOperation,
  organizationId: string,
  next: (org: InOrganization) => Promise<Result>,
  keptSlug?: string,
): Promise<Result> {
  tagOrganization(organizationId);
  const actor: Actor =
    caller.kind === 'person'
      ? { kind: 'person', userId: caller.userId }
      : { kind: caller.kind, secretHash: caller.secretHash };
  const self = operation.orSelf !== undefined && namesActor(await getRawInput(), operation.orSelf, actor);
  const requirement = self ? ANY_MEMBER : operation.may;
  const alsoNeeds = operation.whenGiven ? neededFor(await getRawInput(), operation.whenGiven) : undefined;
  const access = new OrganizationAccess(actor, organizationId, requirement, ctx.settings.roles, alsoNeeds);
  // Entered before the guard reads: a change committed after that read waits for this answer.
  if (operation.answersAccess) ctx.requestsInFlight.enter(accessAnswers(organizationId), ctx.answering);
  const org = new InOrganization(db, access, keptSlug);
  if (type === 'subscription') await org.settle();
  const result = await next(org);
  const settling = org.settle();
  if (settling) await settling;
  recordUse(ctx, db, access.keyUse);
  return result;
}

const meta = (operation: OrganizationOperation) => ({
  permission: operation.may,
  ...(operation.orSelf !== undefined && { orSelf: operation.orSelf.field }),
  ...(operation.whenGiven !== undefined && { whenGiven: operation.whenGiven }),
});

/**
 * The part of the input that names the organization, checked as tRPC checks a procedure's input (a
 * 400 with the schema's issues), after the token and before anything else: the procedure declares
 * the same schema as its input after its middleware, for its type and the OpenAPI document.
 */
async function namingInput<Schema extends z.ZodType>(schema: Schema, call: Call): Promise<z.output<Schema>> {
  const named = schema.safeParse(await call.getRawInput());
  if (!named.success) throw new TRPCError({ code: 'BAD_REQUEST', cause: named.error });
  return named.data;
}

const headerProcedure = (operation: OrganizationOperation) =>
  publicProcedure.meta(meta(operation)).use((call) =>
    authenticated(call, (caller, db) => {
      const organizationId = organizationIdFromHeader(call.ctx.organizationIdHeader);
      return inOrganization(call, caller, db, operation, organizationId, (org) =>
        call.next({ ctx: { caller, org, db: undefined } }),
      );
    }),
  );

const pathProcedure = (operation: OrganizationOperation) =>
  publicProcedure
    .meta(meta(operation))
    .use((call) =>
      authenticated(call, async (caller, db) => {
        const { organization_id } = await namingInput(organizationPathInput, call);
        return inOrganization(call, caller, db, operation, organization_id, (org) =>
          call.next({ ctx: { caller, org, db: undefined } }),
        );
      }),
    )
    .input(organizationPathInput);

/** The organization named in the input (the path on REST), read before the rest of the input is checked. */
const inputProcedure = (operation: OrganizationOperation) =>
  publicProcedure.meta(meta(operation)).use((call) =>
    authenticated(call, async (caller, db) => {
      const raw = (await call.getRawInput()) as { organization_id?: unknown } | undefined;
      const named = organizationIdSchema.toLowerCase().safeParse(raw?.organization_id);
      if (!named.success) {
        throw badRequest('Missing or invalid organization id', [
          { field: 'organization_id', problem: 'Must be an organization id (a UUID)' },
        ]);
      }
      return inOrganization(call, caller, db, operation, named.data, (org) =>
        call.next({ ctx: { caller, org, db: undefined } }),
      );
    }),
  );

/**
 * The organization named by `{slug}` in the path (behaviour §15), a malformed one 400 first. An
 * unknown slug names no organization, answered as a non-member is. A read takes the id this instance
 * kept for the slug, confirmed in the guard's round trip, and looks the slug up afresh only when it
 * has moved (authorization/slugs.ts).
 */
const slugProcedure = (operation: OrganizationOperation) =>
  publicProcedure
    .meta(meta(operation))
    .use((call) =>
      authenticated(call, async (caller, db) => {
        const { slug } = await namingInput(organizationSlugPathInput, call);
        const inNamed = (organizationId: string, keptSlug?: string) =>
          inOrganization(
            call,
            caller,
            db,
            operation,
            organizationId,
            (org) => call.next({ ctx: { caller, org, db: undefined } }),
            keptSlug,
          );
        const kept = call.type === 'query' ? keptIdOfSlug(slug) : undefined;
        if (kept !== undefined) {
          try {
            return await inNamed(kept, slug);
          } catch (error) {
            if (!(error instanceof SlugMoved)) throw error;
          }
        }
        return inNamed(await organizationIdBySlug(db, slug));
      }),
    )
    .input(organizationSlugPathInput);

/**
 * An operation in one organization that needs what `may` names (behaviour §3.2, §11), enforced by
 * the platform whatever the operation does: its handler gets `ctx.org` (InOrganization), not the
 * database.
 */
export function organizationProcedure(
  operation: OrganizationOperation & { from: 'header' },
): ReturnType<typeof headerProcedure>;
export function organizationProcedure(
  operation: OrganizationOperation & { from: 'path' },
): ReturnType<typeof pathProcedure>;
export function organizationProcedure(
  operation: OrganizationOperation & { from: 'input' },
): ReturnType<typeof inputProcedure>;
export function organizationProcedure(
  operation: OrganizationOperation & { from: 'slug' },
): ReturnType<typeof slugProcedure>;
export function organizationProcedure(operation: OrganizationOperation) {
  if (operation.from === 'header') return headerProcedure(operation);
  if (operation.from === 'path') return pathProcedure(operation);
  if (operation.from === 'slug') return slugProcedure(operation);
  return inputProcedure(operation);
}
