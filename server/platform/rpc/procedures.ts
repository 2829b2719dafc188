/**
 * Role checks as procedure builders (behaviour §3): each adds what it proved to the context, so a
 * procedure's builder says who may call it and its handler holds no permission ifs.
 */
import { organizationPathInput } from '../../shared/lifecycle.ts';
import { organizationIdSchema, type Role } from '../../shared/schemas.ts';
import { badRequest, forbidden } from '../errors.ts';
import { roleInOrganization } from '../data/memberships.ts';
import {
  assertCanManageMembers,
  assertCanReadEvents,
  assertCanReadMembers,
  assertOwner,
  assertOwnerOrAdmin,
} from '../data/permissions.ts';
import { idempotentRequest } from './idempotency.ts';
import { isBadRequest, publicProcedure } from './init.ts';

/** A caller with a valid bearer token (behaviour §2); a change may carry an Idempotency-Key. */
export const authenticatedProcedure = publicProcedure.use(async ({ ctx, next, type, path, getRawInput }) => {
  const caller = await ctx.verifyToken(ctx.authorization);
  const idempotency = type === 'mutation' ? await idempotentRequest(ctx, caller.userId, path, getRawInput) : undefined;
  if (!idempotency) return next({ ctx: { caller } });
  const db = ctx.db.withIdempotency(idempotency, () => (ctx.responseHeaders['idempotency-replayed'] = 'true'));
  return next({ ctx: { caller, db } });
});

/** POST /users and POST /organizations: the token's role must be owner or admin (behaviour §3.1). */
export const creatorProcedure = authenticatedProcedure.use(({ ctx, next }) => {
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

/**
 * The caller acting on the organization named by the `organization_id` header, membership not yet
 * checked: only for a procedure whose own queries check it, to save a database round trip.
 */
export const organizationActorProcedure = authenticatedProcedure.use(({ ctx, next }) => {
  const organizationId = organizationIdFromHeader(ctx.organizationIdHeader);
  return next({ ctx: { actor: { userId: ctx.caller.userId, organizationId } } });
});

/**
 * A role rule on the header's organization, for procedures whose own queries check the caller's
 * role (server/data): a change under the organization's lock, the member list by joining the
 * caller's membership. That saves a query per request. A request refused as bad (its input, a
 * cursor) has the role read here, so that a caller who may not act is told 403, not what is wrong
 * with the request (order: token, header, role, body).
 */
const organizationRoleProcedure = (assertRole: (role: Role | undefined) => void) =>
  organizationActorProcedure.use(async ({ ctx, next }) => {
    const result = await next();
    if (!result.ok && isBadRequest(result.error)) {
      assertRole(await roleInOrganization(ctx.db, ctx.actor.organizationId, ctx.actor.userId));
    }
    return result;
  });

/** Any member of the organization named by the `organization_id` header (behaviour §3.2). */
export const organizationMemberProcedure = organizationRoleProcedure(assertCanReadMembers);

/** An owner or admin changing the organization's members. */
export const organizationManagerProcedure = organizationRoleProcedure(assertCanManageMembers);

/**
 * The caller acting on the organization named by `{organization_id}` in the path (behaviour §8: the
 * header's rules), membership not yet checked: for a procedure whose own queries check it. The id
 * is parsed before anything else is read, so a malformed one is 400 (order: token, path id, role,
 * body).
 */
export const pathOrganizationActorProcedure = authenticatedProcedure
  .input(organizationPathInput)
  .use(({ ctx, input, next }) =>
    next({ ctx: { actor: { userId: ctx.caller.userId, organizationId: input.organization_id } } }),
  );

/**
 * A role rule on the path's organization. A read has the caller's role read and checked before it
 * runs. A change checks it itself, under the organization's lock (server/data), so it is not read
 * here as well; only a request refused as bad has it read here, as organizationRoleProcedure does.
 */
const pathOrganizationRoleProcedure = (assertRole: (role: Role | undefined) => void) =>
  pathOrganizationActorProcedure.use(async ({ ctx, type, next }) => {
    const checkRole = async () =>
      assertRole(await roleInOrganization(ctx.db, ctx.actor.organizationId, ctx.actor.userId));
    if (type === 'query') {
      await checkRole();
      return next();
    }
    const result = await next();
    if (!result.ok && isBadRequest(result.error)) await checkRole();
    return result;
  });

/** An owner or admin of the path's organization. */
export const pathOrganizationManagerProcedure = pathOrganizationRoleProcedure((role) =>
  assertOwnerOrAdmin(role, 'do this'),
);

/** An owner of the path's organization. */
export const pathOrganizationOwnerProcedure = pathOrganizationRoleProcedure((role) => assertOwner(role, 'do this'));

/**
 * Owners and admins reading the audit events of the organization named in the input (the path on
 * REST), for queries and subscriptions alike. The role is read
 * before the rest of the input is checked, so a caller who may not read the events is told 403,
 * not what is wrong with the query (the order of checks of the other endpoints).
 */
export const organizationEventReaderProcedure = authenticatedProcedure.use(async ({ ctx, getRawInput, next }) => {
  const raw = (await getRawInput()) as { organization_id?: unknown } | undefined;
  const named = organizationIdSchema.toLowerCase().safeParse(raw?.organization_id);
  if (named.success) assertCanReadEvents(await roleInOrganization(ctx.db, named.data, ctx.caller.userId));
  return next();
});
