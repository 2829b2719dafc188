/** The statements of an organization's domains (behaviour §17): SQL only, no rules, nothing thrown. */
import type { DomainEnrollment } from '../../../shared/domains.ts';
import type { Role } from '../../../shared/fields.ts';
import { pagedList, type PageRequest } from '../../platform/database/pages.ts';
import { prepare } from '../../platform/database/prepared.ts';
import type { Sql } from '../../platform/database/schema.ts';
import type { ClockedReader } from '../../platform/authorization/memberships.ts';
import type { Reader, Tx } from '../../platform/database/transaction.ts';

const DOMAIN_COLUMNS = [
  'd.id',
  'd.organization_id',
  'd.domain',
  'd.verification_value',
  'd.enrollment',
  'd.default_role',
  'd.created_at',
  'd.verified_at',
] as const;

const domainList = pagedList(
  (sql: Sql, organizationId: string) =>
    sql.selectFrom('organization_domains as d').select(DOMAIN_COLUMNS).where('d.organization_id', '=', organizationId),
  { createdAt: 'd.created_at', id: 'd.id' },
);

export const domainRows = (reader: ClockedReader, organizationId: string, page: PageRequest) =>
  domainList(reader, reader.dialect, page, organizationId);

const oneDomain = prepare((sql, organizationId: string, domainId: string) =>
  sql
    .selectFrom('organization_domains as d')
    .select(DOMAIN_COLUMNS)
    .where('d.organization_id', '=', organizationId)
    .where('d.id', '=', domainId),
);

export const domainRow = (reader: Reader, organizationId: string, domainId: string) =>
  reader.first(oneDomain(reader.sql, organizationId, domainId));

export type DomainRow = NonNullable<Awaited<ReturnType<typeof domainRow>>>;

const byName = prepare((sql, organizationId: string, domain: string) =>
  sql
    .selectFrom('organization_domains as d')
    .select(DOMAIN_COLUMNS)
    .where('d.organization_id', '=', organizationId)
    .where('d.domain', '=', domain),
);

/** The organization's row for `domain`, if it added it. */
export const domainByName = (reader: Reader, organizationId: string, domain: string) =>
  reader.first(byName(reader.sql, organizationId, domain));

const holder = prepare((sql, domain: string) =>
  sql.selectFrom('organization_domains as d').select(DOMAIN_COLUMNS).where('d.verified_domain', '=', domain),
);

/** The one row that holds `domain` verified, whichever organization's. */
export const verifiedHolder = (reader: Reader, domain: string) => reader.first(holder(reader.sql, domain));

export interface NewDomain {
  id: string;
  organizationId: string;
  domain: string;
  verificationValue: string;
  verified: boolean;
}

export function insertDomain(tx: Tx, row: NewDomain): void {
  tx.later(
    tx.sql.insertInto('organization_domains').values({
      id: row.id,
      organization_id: row.organizationId,
      domain: row.domain,
      verification_value: row.verificationValue,
      enrollment: 'manual',
      default_role: 'member',
      created_at: tx.timestamp(),
      verified_at: row.verified ? tx.timestamp() : null,
      verified_domain: row.verified ? row.domain : null,
    }),
  );
}

export function markVerified(tx: Tx, domainId: string, domain: string): void {
  tx.later(
    tx.sql
      .updateTable('organization_domains')
      .set({ verified_at: tx.timestamp(), verified_domain: domain })
      .where('id', '=', domainId),
  );
}

export function updateEnrollment(tx: Tx, domainId: string, enrollment: DomainEnrollment, defaultRole: Role): void {
  tx.later(
    tx.sql
      .updateTable('organization_domains')
      .set({ enrollment, default_role: defaultRole })
      .where('id', '=', domainId),
  );
}

export function deleteDomain(tx: Tx, domainId: string): void {
  tx.later(tx.sql.deleteFrom('organization_domains').where('id', '=', domainId));
}
