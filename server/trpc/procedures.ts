/**
 * Role checks as procedure builders (CONTRACT 3): each adds what it proved to the context, so a
 * procedure's builder says who may call it and its handler holds no permission ifs.
 */
import { organizationIdSchema } from '../../shared/schemas.ts';
import { badRequest, forbidden } from '../errors.ts';
import { roleInOrganization } from '../data/memberships.ts';
import { assertCanManageMembers, assertCanReadMembers } from '../data/permissions.ts';
import { idempotentRequest } from './idempotency.ts';
import { isInputError, publicProcedure } from './init.ts';

/** A caller with a valid bearer token (CONTRACT 2); a change may carry an Idempotency-Key. */
export const authenticatedProcedure = publicProcedure.use(async ({ ctx, next, type, path, getRawInput }) => {
  const caller = await ctx.verifyToken(ctx.authorization);
  const idempotency = type === 'mutation' ? await idempotentRequest(ctx, caller.userId, path, getRawInput) : undefined;
  if (!idempotency) return next({ ctx: { caller } });
  const db = ctx.db.withIdempotency(idempotency, () => (ctx.responseHeaders['idempotency-replayed'] = 'true'));
  return next({ ctx: { caller, db } });
});

/** POST /users and POST /organizations: the token's role must be owner or admin (CONTRACT 3.1). */
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

/** Any member of the organization named by the `organization_id` header (CONTRACT 3.2). */
export const organizationMemberProcedure = organizationActorProcedure.use(async ({ ctx, next }) => {
  // Read from the database on every request, never from the token.
  const role = await roleInOrganization(ctx.db, ctx.actor.organizationId, ctx.actor.userId);
  assertCanReadMembers(role);
  return next();
});

/**
 * An owner or admin changing the organization's members. A valid request's role is checked by the
 * data layer under the organization's row lock (memberships.ts), so it is not read here as well:
 * that saves a query per change. An invalid input has the role read here, so that a caller who may
 * not manage members is told 403, not what is wrong with the body (order: token, header, role, body).
 */
export const organizationManagerProcedure = organizationActorProcedure.use(async ({ ctx, next }) => {
  const result = await next();
  if (!result.ok && isInputError(result.error)) {
    assertCanManageMembers(await roleInOrganization(ctx.db, ctx.actor.organizationId, ctx.actor.userId));
  }
  return result;
});
