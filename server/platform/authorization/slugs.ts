/**
 * An organization named by its slug (behaviour §15): the id it stands for, read by the slug's
 * unique index before the request's authorization, which then runs as for the id.
 */
import { prepare } from '../database/prepared.ts';
import type { Reader } from '../database/transaction.ts';

/**
 * What an unknown slug stands for: an id no organization has (ids are random UUIDs, never the nil
 * one), so that the authorization answers an unknown slug as it answers a non-member, 403.
 */
export const NO_ORGANIZATION = '00000000-0000-0000-0000-000000000000';

const organizationBySlug = prepare((sql, slug: string) =>
  sql.selectFrom('organizations').select('id').where('slug', '=', slug),
);

export async function organizationIdBySlug(reader: Reader, slug: string): Promise<string> {
  return (await reader.first(organizationBySlug(reader.sql, slug)))?.id ?? NO_ORGANIZATION;
}
