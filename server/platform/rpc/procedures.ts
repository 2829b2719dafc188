/**
 * Who may call a procedure, said by the builder it starts from (behaviour §3): a caller with a
 * token, a creator (the token's role), or an actor in an organization holding the one permission
 * the procedure names (`organizationProcedure`). Each adds what it proved to the context, so a
 * handler holds no permission ifs, and each records its access in the procedure's meta, so that
 * every operation's permission can be listed (tests/unit/permissions.test.ts).
 */
import { organizationPathInput } from '../../../shared/organizations.ts';
import { organizationIdSchema } from '../../../shared/fields.ts';
import { badRequest, forbidden } from '../errors.ts';
import { ANY_MEMBER, OrganizationAccess, type Requirement } from '../authorization/access.ts';
import { InOrganization } from '../authorization/in-organization.ts';
import type { RoleCatalogue } from '../role-catalogue.ts';
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

/** What an operation in an organization declares: where the organization is named, and what it needs. */
export interface OrganizationOperation {
  /** Where the organization is named: the `organization_id` header, `{organization_id}` in the path, or the input. */
  from: 'header' | 'path' | 'input';
  /** The one permission the operation needs, or ANY_MEMBER. */
  may: Requirement;
  /**
   * Acting on oneself needs only membership (leaving, leaving a team, checking one's own
   * permissions): `field` is the input field naming the user acted on, which names the actor when
   * it is absent too if `absentMeansSelf`.
   */
  orSelf?: { field: string; absentMeansSelf?: boolean };
}

/** Whether the raw input names the actor as the user acted on (see OrganizationOperation.orSelf). */
function namesActor(rawInput: unknown, orSelf: NonNullable<OrganizationOperation['orSelf']>, userId: string): boolean {
  const named = (rawInput as Record<string, unknown> | undefined)?.[orSelf.field];
  return named === userId || (named === undefined && orSelf.absentMeansSelf === true);
}

/**
 * The organization scope of the request (authorization/in-organization.ts), in the context in place
 * of the database: the operation reads and changes only through it, after the guard. After the
 * operation, the guard runs if nothing ran it, and a refusal replaces whatever was answered (order:
 * token, organization id, permission, body). A subscription is authorized before it starts.
 */
async function inOrganization<Result extends { ok: boolean }>(
  ctx: { caller: { userId: string }; db: Db; settings: { roles: RoleCatalogue } },
  { type, getRawInput }: { type: string; getRawInput: () => Promise<unknown> },
  operation: OrganizationOperation,
  organizationId: string,
  next: (org: InOrganization) => Promise<Result>,
): Promise<Result> {
  const { userId } = ctx.caller;
  const self = operation.orSelf !== undefined && namesActor(await getRawInput(), operation.orSelf, userId);
  const requirement = self ? ANY_MEMBER : operation.may;
  const access = new OrganizationAccess({ kind: 'person', userId }, organizationId, requirement, ctx.settings.roles);
  const org = new InOrganization(ctx.db, access);
  if (type === 'subscription') await org.settle();
  const result = await next(org);
  await org.settle();
  return result;
}

const meta = (operation: OrganizationOperation) => ({
  permission: operation.may,
  ...(operation.orSelf !== undefined && { orSelf: operation.orSelf.field }),
});

const headerProcedure = (operation: OrganizationOperation) =>
  authenticatedProcedure.meta(meta(operation)).use(({ ctx, type, getRawInput, next }) => {
    const organizationId = organizationIdFromHeader(ctx.organizationIdHeader);
    return inOrganization(ctx, { type, getRawInput }, operation, organizationId, (org) =>
      next({ ctx: { org, db: undefined } }),
    );
  });

// The path's id is parsed before anything else is read, so a malformed one is 400 first.
const pathProcedure = (operation: OrganizationOperation) =>
  authenticatedProcedure
    .meta(meta(operation))
    .input(organizationPathInput)
    .use(({ ctx, input, type, getRawInput, next }) =>
      inOrganization(ctx, { type, getRawInput }, operation, input.organization_id, (org) =>
        next({ ctx: { org, db: undefined } }),
      ),
    );

/** The organization named in the input (the path on REST), read before the rest of the input is checked. */
const inputProcedure = (operation: OrganizationOperation) =>
  authenticatedProcedure.meta(meta(operation)).use(async ({ ctx, type, getRawInput, next }) => {
    const raw = (await getRawInput()) as { organization_id?: unknown } | undefined;
    const named = organizationIdSchema.toLowerCase().safeParse(raw?.organization_id);
    if (!named.success) {
      throw badRequest('Missing or invalid organization id', [
        { field: 'organization_id', problem: 'Must be an organization id (a UUID)' },
      ]);
    }
    return inOrganization(ctx, { type, getRawInput }, operation, named.data, (org) =>
      next({ ctx: { org, db: undefined } }),
    );
  });

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
export function organizationProcedure(operation: OrganizationOperation) {
  if (operation.from === 'header') return headerProcedure(operation);
  if (operation.from === 'path') return pathProcedure(operation);
  return inputProcedure(operation);
}
