/**
 * An organization's e-mail domains (behaviour §17): added by those who hold `domains:manage`,
 * verified by a TXT record at `_org-verification.<domain>` or at once by the adder's verified e-mail
 * at that very domain, and held verified by one organization at a time (DOMAIN_TAKEN; the unique
 * index on `verified_domain` settles a race between organizations). Public e-mail providers'
 * domains and IP addresses are refused. Enrollment other than `manual` needs the domain verified.
 */
import { randomBytes } from 'node:crypto';
import type { z } from 'zod';
import type { addDomainInput, DomainView, updateDomainInput } from '../../../shared/domains.ts';
import type { Caller } from '../../platform/auth/tokens.ts';
import type { InOrganization } from '../../platform/authorization/in-organization.ts';
import { assertMayGive } from '../../platform/authorization/rules.ts';
import { newId } from '../../platform/database/ids.ts';
import { toPage, type Page, type PageRequest } from '../../platform/database/pages.ts';
import { isoTimestamp, isoTimestampOrNull } from '../../platform/database/timestamps.ts';
import { badRequest, conflict, DomainError, notFound } from '../../platform/errors.ts';
import { appendEvent } from '../../platform/organization-changes.ts';
import type { TxtLookup } from './dns-txt.ts';
import {
  deleteDomain,
  domainByName,
  domainRow,
  domainRows,
  insertDomain,
  markVerified,
  updateEnrollment,
  verifiedHolder,
  type DomainRow,
} from './domains.queries.ts';
import { isPublicEmailProvider } from './public-providers.ts';
import { verifiedEmailDomain } from './verified-email.ts';

/** Where the TXT record goes: a label of our own under the domain, as other services do. */
const RECORD_LABEL = '_org-verification';
/** What the service shows of the records it found when none holds the value. */
const SHOWN_RECORDS = 5;
const SHOWN_RECORD_LENGTH = 100;

const noSuchDomain = () => notFound('The organization has no such domain');
const taken = (domain: string) =>
  new DomainError('DOMAIN_TAKEN', `${domain} is verified by another organization: it can be verified by one at a time`);

const domainView = (row: DomainRow): DomainView => ({
  domain_id: row.id,
  domain: row.domain,
  status: row.verified_at === null ? 'pending' : 'verified',
  verification: { type: 'dns_txt', name: `${RECORD_LABEL}.${row.domain}`, value: row.verification_value },
  enrollment: row.enrollment,
  default_role: row.default_role,
  created_at: isoTimestamp(row.created_at),
  verified_at: isoTimestampOrNull(row.verified_at),
});

/** Adds a domain, verified at once when the caller's verified e-mail is at exactly that domain. */
export async function addDomain(
  org: InOrganization,
  caller: Caller,
  { domain }: z.infer<typeof addDomainInput>,
): Promise<DomainView> {
  if (isPublicEmailProvider(domain)) {
    throw badRequest(`${domain} is a public e-mail provider's domain: no organization may hold it`, [
      { field: 'domain', problem: "Must not be a public e-mail provider's domain" },
    ]);
  }
  const verificationValue = `org-verification=${randomBytes(24).toString('base64url')}`;
  let verified = false;
  try {
    return await org.change(async (tx, change) => {
      const existing = await domainByName(tx, org.organizationId, domain);
      const holder = await verifiedHolder(tx, domain);
      await change.held();
      if (existing) throw conflict(`The organization has added ${domain} already`);
      if (holder) throw taken(domain);
      verified = (await verifiedEmailDomain(tx, caller)) === domain;
      const id = newId(tx.now.getTime());
      insertDomain(tx, { id, organizationId: org.organizationId, domain, verificationValue, verified });
      await appendEvent(tx, change, {
        type: 'domain.created',
        subjectUserId: null,
        data: { domain_id: id, domain, status: verified ? 'verified' : 'pending' },
      });
      if (verified) {
        await appendEvent(tx, change, {
          type: 'domain.verified',
          subjectUserId: null,
          data: { domain_id: id, domain, by: 'email' },
        });
      }
      const now = tx.timestamp();
      return domainView({
        id,
        organization_id: org.organizationId,
        domain,
        verification_value: verificationValue,
        enrollment: 'manual',
        default_role: 'member',
        created_at: now,
        verified_at: verified ? now : null,
      });
    });
  } catch (error) {
    // Another organization verified it meanwhile, or this one added it in a change beside this one.
    if (org.isUniqueViolation(error))
      throw verified ? taken(domain) : conflict(`The organization has added ${domain} already`);
    throw error;
  }
}

/** The records found, shortened, for the message of a verification that failed. */
function foundRecords(records: string[]): string {
  if (records.length === 0) return 'no TXT record';
  const shown = records
    .slice(0, SHOWN_RECORDS)
    .map((record) =>
      JSON.stringify(record.length > SHOWN_RECORD_LENGTH ? `${record.slice(0, SHOWN_RECORD_LENGTH)}…` : record),
    );
  const more = records.length > SHOWN_RECORDS ? ` and ${records.length - SHOWN_RECORDS} more` : '';
  return `${records.length === 1 ? 'the TXT record' : 'the TXT records'} ${shown.join(', ')}${more}`;
}

/**
 * Verifies a pending domain by its TXT record: looked up before the organization's change, so that
 * no lock waits on DNS; a failing resolver changes nothing (dns-txt.ts). A verified one is answered as is.
 */
export async function verifyDomain(org: InOrganization, domainId: string, lookup: TxtLookup): Promise<DomainView> {
  const row = await domainRow(org.reads, org.organizationId, domainId);
  if (!row) throw noSuchDomain();
  if (row.verified_at !== null) return domainView(row);
  const name = `${RECORD_LABEL}.${row.domain}`;
  const records = await lookup(name);
  try {
    return await org.change(async (tx, change) => {
      const current = await domainRow(tx, org.organizationId, domainId);
      const holder = current && (await verifiedHolder(tx, current.domain));
      if (!current) throw noSuchDomain();
      if (current.verified_at !== null) return domainView(current);
      if (!records.includes(current.verification_value)) {
        throw new DomainError(
          'DOMAIN_NOT_VERIFIED',
          `No TXT record at ${name} holds ${current.verification_value}: found ${foundRecords(records)}`,
        );
      }
      if (holder) throw taken(current.domain);
      markVerified(tx, current.id, current.domain);
      await appendEvent(tx, change, {
        type: 'domain.verified',
        subjectUserId: null,
        data: { domain_id: current.id, domain: current.domain, by: 'dns_txt' },
      });
      return domainView({ ...current, verified_at: tx.timestamp() });
    });
  } catch (error) {
    if (org.isUniqueViolation(error)) throw taken(row.domain);
    throw error;
  }
}

/** Changes a domain's enrollment and default role; the same values change nothing and record no event. */
export async function updateDomain(org: InOrganization, input: z.infer<typeof updateDomainInput>): Promise<DomainView> {
  return org.change(async (tx, change) => {
    const row = await domainRow(tx, org.organizationId, input.domain_id);
    const held = await change.held();
    if (!row) throw noSuchDomain();
    const enrollment = input.enrollment ?? row.enrollment;
    const defaultRole = input.default_role ?? row.default_role;
    if (enrollment !== 'manual' && row.verified_at === null) {
      throw new DomainError(
        'DOMAIN_NOT_VERIFIED',
        `${row.domain} is not verified yet: its enrollment stays manual until it is`,
      );
    }
    if (input.default_role !== undefined) await assertMayGive(tx, org.access, held, defaultRole, 'default_role');
    const changes = {
      ...(enrollment !== row.enrollment && { enrollment: { from: row.enrollment, to: enrollment } }),
      ...(defaultRole !== row.default_role && { default_role: { from: row.default_role, to: defaultRole } }),
    };
    if (Object.keys(changes).length === 0) return domainView(row);
    updateEnrollment(tx, row.id, enrollment, defaultRole);
    await appendEvent(tx, change, {
      type: 'domain.updated',
      subjectUserId: null,
      data: { domain_id: row.id, domain: row.domain, changes },
    });
    return domainView({ ...row, enrollment, default_role: defaultRole });
  });
}

export async function listDomains(org: InOrganization, page: PageRequest = {}): Promise<Page<DomainView>> {
  const rows = await domainRows(org.reads, org.organizationId, page);
  return toPage(rows, page.limit, (row) => ({ createdAt: row.created_at, id: row.id }), domainView);
}

export async function getDomain(org: InOrganization, domainId: string): Promise<DomainView> {
  const row = await domainRow(org.reads, org.organizationId, domainId);
  if (!row) throw noSuchDomain();
  return domainView(row);
}

/** Removes a domain: its people join by it no more; pending join requests stay for the admins to decide. */
export async function removeDomain(org: InOrganization, domainId: string): Promise<{ message: string }> {
  return org.change(async (tx, change) => {
    const row = await domainRow(tx, org.organizationId, domainId);
    if (!row) throw noSuchDomain();
    deleteDomain(tx, row.id);
    await appendEvent(tx, change, {
      type: 'domain.deleted',
      subjectUserId: null,
      data: { domain_id: row.id, domain: row.domain },
    });
    return { message: 'Domain removed' };
  });
}
