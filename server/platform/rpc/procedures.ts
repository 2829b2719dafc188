/**
 * Who may call a procedure, said by the builder it starts from (behaviour §3): a caller with a
 * token, a creator (the token's role), or an actor in an organization holding the one permission
 * the procedure names (`organizationProcedure`). Each adds what it proved to the context, so a
 * handler holds no permission ifs, and each records its access in the procedure's meta, so that
 * every operation's permission can be listed (tests/unit/permissions.test.ts).
 */
import type { TRPCError } from '@trpc/server';
import { organizationPathInput } from '../../../shared/organizations.ts';
import { organizationIdSchema } from '../../../shared/fields.ts';
import { badRequest, forbidden, isBadRequest } from '../errors.ts';
import { assertMay, roleInOrganization, type OrganizationActor } from '../access.ts';
import type { ServicePermission } from '../role-catalogue.ts';
import type { Db } from '../database/transaction.ts';
import { idempotencyHook } from '../idempotency.ts';
import { idempotentRequest } from './idempotency.ts';
import { publicProcedure } from './init.ts';

/** A caller with a valid bearer token (behaviour §2); a change may carry an Idempotency-Key. */
const authenticatedProcedure = publicProcedure.use(async ({ ctx, next, type, path, getRawInput }) => {
  const caller = await ctx.verifyToken(ctx.authorization);
  const idempotency = type === 'mutation' ? await idempotentRequest(ctx, caller.userId, path, getRawInput) : undefined;
  if (!idempotency) return next({ ctx: { caller } });
  const hook = idempotencyHook(idempotency, ctx.keysInFlight);
  const db = ctx.db.withChangeHook(hook, () => (ctx.responseHeaders['idempotency-replayed'] = 'true'));
  return next({ ctx: { caller, db } });
});

/** Any caller with a valid token, acting on what is their own: their record, their invitations. */
export const callerProcedure = authenticatedProcedure.meta({ access: 'caller' });

/** POST /users and POST /organizations: the token's role must be owner or admin (behaviour §3.1). */
export const creatorProcedure = authenticatedProcedure.meta({ access: 'creator' }).use(({ ctx, next }) => {
  const role = ctx.caller.tokenRole;
  if (ctx.settings.REQUIRE_CREATOR_ROLE && role !== 'owner' && role !== 'admin') {
    throw forbidden('This action needs a token with role owner or admin');
  }
  return next();
});

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

export interface OrganizationAccess {
  /** Where the organization is named: the `organization_id` header, `{organization_id}` in the path, or the input. */
  from: 'header' | 'path' | 'input';
  /** The one permission the procedure needs. */
  may: ServicePermission;
  /**
   * The procedure's own query reads the actor's role (a member read, the member list), so the role
   * is not read first: a database round trip saved per request.
   */
  checkedInQuery?: boolean;
}

/**
 * The actor enters the context, and the role is read and checked here or later. A change checks it
 * itself, under the organization's lock, and a query that says `checkedInQuery` in its own SQL: for
 * those the role is read here only when the request is refused as bad (its input, a cursor), so
 * that a caller who may not act is told 403, not what is wrong with the request (order: token,
 * organization id, permission, body). Other reads and subscriptions have it read and checked
 * before they run. One middleware for both: each layer of tRPC's chain is an async call and copies
 * of the call options and the context.
 */
async function actingWithAccess<Result extends { ok: boolean; error?: TRPCError }>(
  { db, type, actor }: { db: Db; type: string; actor: OrganizationActor },
  { checkedInQuery }: OrganizationAccess,
  next: () => Promise<Result>,
): Promise<Result> {
  const check = async () => assertMay(db, actor, await roleInOrganization(db, actor.organizationId, actor.userId));
  if (type !== 'mutation' && !checkedInQuery) {
    await check();
    return next();
  }
  const result = await next();
  if (!result.ok && result.error && isBadRequest(result.error)) await check();
  return result;
}

const actorOf = (
  ctx: { caller: { userId: string }; settings: { roles: OrganizationActor['roles'] } },
  organizationId: string,
  access: OrganizationAccess,
): OrganizationActor => ({
  userId: ctx.caller.userId,
  organizationId,
  permission: access.may,
  roles: ctx.settings.roles,
});

const headerProcedure = (access: OrganizationAccess) =>
  authenticatedProcedure
    .meta({ permission: access.may })
    .use(({ ctx, type, next }) => {
      const actor = actorOf(ctx, organizationIdFromHeader(ctx.organizationIdHeader), access);
      return actingWithAccess({ db: ctx.db, type, actor }, access, () => next({ ctx: { actor } }));
    });

// The path's id is parsed before anything else is read, so a malformed one is 400 first.
const pathProcedure = (access: OrganizationAccess) =>
  authenticatedProcedure
    .meta({ permission: access.may })
    .input(organizationPathInput)
    .use(({ ctx, input, type, next }) => {
      const actor = actorOf(ctx, input.organization_id, access);
      return actingWithAccess({ db: ctx.db, type, actor }, access, () => next({ ctx: { actor } }));
    });

/**
 * A procedure in one organization that needs the permission `may` (behaviour §3.2). The actor in
 * the context carries it, for the module's queries to check under the organization's lock.
 */
export function organizationProcedure(
  access: OrganizationAccess & { from: 'header' },
): ReturnType<typeof headerProcedure>;
export function organizationProcedure(access: OrganizationAccess & { from: 'path' }): ReturnType<typeof pathProcedure>;
export function organizationProcedure(
  access: OrganizationAccess & { from: 'input' },
): ReturnType<typeof inputProcedure>;
export function organizationProcedure(access: OrganizationAccess) {
  if (access.from === 'header') return headerProcedure(access);
  if (access.from === 'path') return pathProcedure(access);
  return inputProcedure(access);
}

/**
 * The organization named in the input (the path on REST): the role is read before the rest of the
 * input is checked, so a caller who may not act is told 403, not what is wrong with the query. An
 * input without a well-formed organization id goes on, to be refused by the input's own schema.
 */
const inputProcedure = (access: OrganizationAccess) =>
  authenticatedProcedure.meta({ permission: access.may }).use(async ({ ctx, getRawInput, next }) => {
    const raw = (await getRawInput()) as { organization_id?: unknown } | undefined;
    const named = organizationIdSchema.toLowerCase().safeParse(raw?.organization_id);
    if (named.success) {
      const actor = actorOf(ctx, named.data, access);
      await assertMay(ctx.db, actor, await roleInOrganization(ctx.db, actor.organizationId, actor.userId));
    }
    return next();
  });
