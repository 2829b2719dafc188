/** The statements of joining by a verified domain and of join requests (behaviour §17): SQL only. */
import type { Role } from '../../../shared/fields.ts';
import type { JOIN_REQUEST_STATUSES } from '../../../shared/joining.ts';
import { pagedList, type PageRequest } from '../../platform/database/pages.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { Sql } from '../../platform/database/schema.ts';
import type { ClockedReader } from '../../platform/authorization/memberships.ts';
import type { Reader, Tx } from '../../platform/database/transaction.ts';

export type JoinRequestStatus = (typeof JOIN_REQUEST_STATUSES)[number];

const verifiedDomain = prepare((sql, domain: string) =>
  sql
    .selectFrom('organization_domains as d')
    .innerJoin('organizations as o', 'o.id', 'd.organization_id')
    .select(['d.id', 'd.organization_id', 'd.enrollment', 'd.default_role', 'o.name as organization_name', 'o.slug'])
    .where('d.verified_domain', '=', domain),
);

/** The organization that holds `domain` verified, with the domain's enrollment (one at most). */
export const verifiedDomainRow = (reader: Reader, domain: string) => reader.first(verifiedDomain(reader.sql, domain));

const membership = prepare((sql, organizationId: string, userId: string) =>
  sql
    .selectFrom('organization_users')
    .select(['role', 'expires_at'])
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId),
);

/** The user's membership row in the organization, expired or not. */
export const membershipRow = (reader: Reader, organizationId: string, userId: string) =>
  reader.first(membership(reader.sql, organizationId, userId));

const pendingRequest = prepare((sql, organizationId: string, userId: string) =>
  sql
    .selectFrom('join_requests')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('user_id', '=', userId)
    .where('status', '=', 'pending'),
);

export const pendingRequestOf = (reader: Reader, organizationId: string, userId: string) =>
  reader.first(pendingRequest(reader.sql, organizationId, userId));

const REQUEST_COLUMNS = [
  'r.id',
  'r.organization_id',
  'r.user_id',
  'r.role',
  'r.status',
  'r.created_at',
  'u.first_name',
  'u.last_name',
  'u.email',
] as const;

const requestList = pagedList(
  (sql: Sql, organizationId: string) =>
    sql
      .selectFrom('join_requests as r')
      .innerJoin('users as u', 'u.id', 'r.user_id')
      .select(REQUEST_COLUMNS)
      .where('r.organization_id', '=', organizationId),
  { createdAt: 'r.created_at', id: 'r.id' },
);

/** The organization's join requests, oldest first. */
export const requestRows = (reader: ClockedReader, organizationId: string, page: PageRequest) =>
  requestList(reader, reader.dialect, page, organizationId);

const oneRequest = prepare((sql, requestId: string) =>
  sql
    .selectFrom('join_requests as r')
    .innerJoin('users as u', 'u.id', 'r.user_id')
    .select(REQUEST_COLUMNS)
    .where('r.id', '=', requestId),
);

/** A join request by its id, whichever organization's. */
export const requestRow = (reader: Reader, requestId: string) => reader.first(oneRequest(reader.sql, requestId));

export type RequestRow = NonNullable<Awaited<ReturnType<typeof requestRow>>>;

const requestsOfUser = prepare((sql, userId: string) =>
  sql
    .selectFrom('join_requests as r')
    .innerJoin('organizations as o', 'o.id', 'r.organization_id')
    .select(['r.id', 'r.organization_id', 'o.name as organization_name', 'r.status', 'r.created_at'])
    .where('r.user_id', '=', userId)
    .orderBy('r.created_at')
    .orderBy('r.id'),
);

/** A person's join requests, oldest first. */
export const myRequestRows = (reader: Reader, userId: string) => reader.all(requestsOfUser(reader.sql, userId));

export interface NewJoinRequest {
  id: string;
  organizationId: string;
  userId: string;
  role: Role;
}

export function insertRequest(tx: Tx, request: NewJoinRequest): void {
  tx.later(
    tx.sql.insertInto('join_requests').values({
      id: request.id,
      organization_id: request.organizationId,
      user_id: request.userId,
      role: request.role,
      status: 'pending',
      created_at: tx.timestamp(),
      updated_at: tx.timestamp(),
    }),
  );
}

export function setRequestStatus(tx: Tx, requestId: string, status: JoinRequestStatus): void {
  tx.later(tx.sql.updateTable('join_requests').set({ status, updated_at: tx.timestamp() }).where('id', '=', requestId));
}

const domainInvitation = prepare((sql, domainId: string, userId: string) =>
  sql
    .selectFrom('domain_invitations')
    .select('created_at')
    .where('domain_id', '=', domainId)
    .where('user_id', '=', userId),
);

/** Whether the domain has made its automatic invitation for the user already. */
export const domainInvitationOf = (reader: Reader, domainId: string, userId: string) =>
  reader.first(domainInvitation(reader.sql, domainId, userId));

export function insertDomainInvitation(tx: Tx, domainId: string, userId: string): void {
  tx.later(
    tx.sql
      .insertInto('domain_invitations')
      .values({ domain_id: domainId, user_id: userId, created_at: tx.timestamp() }),
  );
}
