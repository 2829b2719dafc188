/**
 * The TXT lookup of a domain's verification (behaviour §17), through the resolvers of DNS_SERVERS
 * (else the system's), each asked once and given DNS_TIMEOUT_MS. A name without TXT records, or
 * that does not exist, has none; a resolver that fails (time-out, SERVFAIL, refusal) is our outage:
 * 503, and nothing changes.
 */
import { Resolver } from 'node:dns/promises';
import type { Settings } from '../../platform/config.ts';
import { DomainError } from '../../platform/errors.ts';

/** The TXT records at a name, each record's strings joined. */
export type TxtLookup = (name: string) => Promise<string[]>;

/** What c-ares answers for a name that has no such record, or does not exist. */
const NO_RECORDS = new Set(['ENODATA', 'ENOTFOUND']);

export function txtLookup(settings: Pick<Settings, 'DNS_SERVERS' | 'DNS_TIMEOUT_MS'>): TxtLookup {
  return async (name) => {
    // A resolver of its own per lookup: c-ares keeps no answer from one verification to the next.
    const resolver = new Resolver({ timeout: settings.DNS_TIMEOUT_MS, tries: 1 });
    if (settings.DNS_SERVERS) resolver.setServers(settings.DNS_SERVERS);
    try {
      return (await resolver.resolveTxt(name)).map((strings) => strings.join(''));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'an unknown failure';
      if (NO_RECORDS.has(code)) return [];
      throw new DomainError(
        'SERVICE_UNAVAILABLE',
        `The DNS resolvers could not answer for ${name} (${code}): nothing was changed, try again later`,
      );
    }
  };
}
