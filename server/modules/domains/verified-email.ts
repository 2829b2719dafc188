/**
 * The caller's verified e-mail (behaviour §17): their token's `email` with `email_verified: true`,
 * equal, ignoring case, to the e-mail of their user record. Nothing else verifies an e-mail, and a
 * caller without a record has none.
 */
import type { Caller } from '../../platform/auth/tokens.ts';
import type { Reader } from '../../platform/database/transaction.ts';
import { userRow } from '../users/users.queries.ts';

/** The domain of the caller's verified e-mail (exactly what follows the `@`), or undefined. */
export async function verifiedEmailDomain(reader: Reader, caller: Caller): Promise<string | undefined> {
  if (caller.kind !== 'person' || caller.verifiedEmail === undefined) return undefined;
  const recorded = (await userRow(reader, caller.userId))?.email;
  if (recorded?.toLowerCase() !== caller.verifiedEmail) return undefined;
  return caller.verifiedEmail.slice(caller.verifiedEmail.lastIndexOf('@') + 1);
}
