/**
 * The SSRF guard for webhook URLs (behaviour §13): a webhook may only call a public address over
 * https://, unless the operator allows plain http (WEBHOOK_ALLOW_HTTP) or private addresses
 * (WEBHOOK_ALLOW_PRIVATE). The check runs at creation and update (a 400 naming `url`) and again at
 * delivery, where DNS may answer differently: `guardedLookup` is then the connection's own lookup,
 * so the socket only ever goes to an address this module has vetted.
 */
import { promises as dns, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/** The longest webhook URL, in UTF-16 code units as zod's `max` counts them (behaviour §13). */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

export interface UrlGuardOptions {
  /** WEBHOOK_ALLOW_HTTP: plain http:// URLs are accepted too. */
  allowHttp: boolean;
  /** WEBHOOK_ALLOW_PRIVATE: addresses that are not public unicast are accepted too. */
  allowPrivate: boolean;
  /** Every address a host name resolves to; by default the system resolver's, all of them. */
  resolve?: (host: string) => Promise<string[]>;
}

/** What is wrong with a webhook URL, for people: the caller adds the field's name. */
export type UrlProblem = string;

/** An address the guard let through, with its family as `net` and undici expect it. */
export interface VettedAddress {
  address: string;
  family: 4 | 6;
}

export type AddressVetting =
  { addresses: VettedAddress[]; problem?: undefined } | { problem: UrlProblem; addresses?: undefined };

/** The code of the error `guardedLookup` fails with: the host did not resolve, or not to vetted addresses. */
export const ADDRESS_REFUSED = 'ERR_WEBHOOK_ADDRESS_REFUSED';

/**
 * The problem with a webhook URL's form, checked without the network: its length, that it parses
 * as an absolute URL (http and https always have a host then), its scheme, and no credentials
 * (they would be stored and shown in clear, and sent to whoever the URL leads to).
 */
export function urlFormProblem(url: string, options: Pick<UrlGuardOptions, 'allowHttp'>): UrlProblem | undefined {
  if (url.length > MAX_WEBHOOK_URL_LENGTH) return `Must be at most ${MAX_WEBHOOK_URL_LENGTH} characters`;
  const parsed = URL.parse(url);
  if (!parsed) return 'Must be an absolute URL with a host, such as https://example.com/hook';
  if (!allowedSchemes(options).includes(parsed.protocol)) {
    return options.allowHttp ? 'Must use https:// or http://' : 'Must use https:// (WEBHOOK_ALLOW_HTTP is off)';
  }
  if (parsed.username || parsed.password) return 'Must not hold a user name or password';
  return undefined;
}

/**
 * The problem with where a webhook URL leads: its form first, then every address its host resolves
 * to must be public unicast (unless allowPrivate), and a name must resolve at all.
 */
export async function urlAddressProblem(url: string, options: UrlGuardOptions): Promise<UrlProblem | undefined> {
  return (await vetUrl(url, options)).problem;
}

/**
 * The addresses a webhook URL's host resolves to, all of them vetted, or the problem. An IP
 * literal is its own single address; a name is resolved once, with all its records, and refused
 * when any of them is (a name answering a public and a private address is a rebinding trick).
 */
export async function vetUrl(url: string, options: UrlGuardOptions): Promise<AddressVetting> {
  const formProblem = urlFormProblem(url, options);
  if (formProblem) return { problem: formProblem };
  return vetHost(hostOf(new URL(url)), options);
}

/**
 * Whether a webhook may call one address, given as text. Public unicast only: every range
 * ipaddr.js names (loopback, private, link-local, unique-local, unspecified, multicast, broadcast,
 * carrier-grade NAT, reserved, documentation, benchmarking, 6to4, Teredo…) is refused.
 * - An IPv4-mapped address (::ffff:a.b.c.d) is judged as the IPv4 inside: it reaches exactly that
 *   address, so a private one is refused and a public one allowed (resolvers may answer that form).
 * - An address in NAT64's well-known prefix (64:ff9b::/96) is judged likewise by its IPv4: on an
 *   IPv6-only host behind DNS64 every IPv4-only receiver resolves to one, and the translator
 *   forwards to the IPv4 inside. The local-use prefix 64:ff9b:1::/48 places it anywhere: refused.
 * - IPv6 outside 2000::/3, the only block IANA hands out for global unicast, is refused even where
 *   ipaddr.js says "unicast" (the IPv4-compatible ::a.b.c.d among them).
 */
export function isPublicAddress(address: string): boolean {
  return rangeOf(address) === 'unicast';
}

/**
 * A `lookup` for `net.connect`, `tls.connect` and undici's `connect` options that resolves the
 * host, vets every address as `vetUrl` does and answers only when all pass, or fails with an error
 * whose code is ADDRESS_REFUSED and whose message is the problem. Connections skip `lookup` for
 * IP literals: delivery vets the URL with `vetUrl` first, which covers them.
 */
export function guardedLookup(options: UrlGuardOptions): LookupFunction {
  return (hostname, lookupOptions, callback) => {
    void vetHost(hostname, options).then((vetting) => {
      const addresses = vetting.addresses?.filter((each) => familyWanted(each, lookupOptions));
      if (!addresses?.length) {
        callback(refusal(vetting.problem ?? `Host ${hostname} has no address of the family asked for`), '');
      } else if (lookupOptions.all) {
        callback(null, addresses satisfies LookupAddress[]);
      } else {
        const [first] = addresses as [VettedAddress];
        callback(null, first.address, first.family);
      }
    });
  };
}

function allowedSchemes({ allowHttp }: Pick<UrlGuardOptions, 'allowHttp'>): string[] {
  return allowHttp ? ['https:', 'http:'] : ['https:'];
}

/** The host as an address or a name: WHATWG URL lower-cases it and brackets an IPv6 literal. */
function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Never rejects: a resolver's failure is a problem like any other. */
async function vetHost(host: string, options: UrlGuardOptions): Promise<AddressVetting> {
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : await (options.resolve ?? resolveAll)(host);
  } catch {
    return { problem: `Host ${host} does not resolve` };
  }
  if (addresses.length === 0) return { problem: `Host ${host} does not resolve` };
  const vetted: VettedAddress[] = [];
  for (const address of addresses) {
    const family = isIP(address);
    const where = address === host ? `Host ${host}` : `Host ${host} resolves to ${address}, which`;
    if (family !== 4 && family !== 6) return { problem: `${where} is not an IP address` };
    if (!options.allowPrivate && !isPublicAddress(address)) {
      return { problem: `${where} is not a public address (${rangeName(address)}; WEBHOOK_ALLOW_PRIVATE is off)` };
    }
    vetted.push({ address, family });
  }
  return { addresses: vetted };
}

/** The range's name for people: ipaddr.js's `linkLocal` reads "link local". */
function rangeName(address: string): string {
  return rangeOf(address).replace(/[A-Z]/g, (letter) => ` ${letter.toLowerCase()}`);
}

/** All the addresses, in the resolver's order, as a connection would try them. */
async function resolveAll(host: string): Promise<string[]> {
  const answers = await dns.lookup(host, { all: true, order: 'verbatim' });
  return answers.map((answer) => answer.address);
}

/** ipaddr.js's name for the address's range, with the refinements `isPublicAddress` describes. */
function rangeOf(address: string): string {
  const parsed = parseAsSocketReads(address);
  if (!parsed) return 'malformed';
  if (parsed instanceof ipaddr.IPv4) return parsed.range();
  if (parsed.match(NAT64_WELL_KNOWN_PREFIX)) return new ipaddr.IPv4(parsed.toByteArray().slice(12)).range();
  if (parsed.range() === 'unicast' && !parsed.match(GLOBAL_UNICAST)) return 'reserved';
  return parsed.range();
}

/**
 * The address the connection would go to, IPv4-mapped IPv6 turned into its IPv4. Only the strict
 * forms `net` takes for an address (`127.1` is a name to it). ipaddr.js reads IPv6 `::a.b.c.d` as
 * the mapped `::ffff:a.b.c.d`, where the socket reads the IPv4-compatible `::a.b.c.d`: WHATWG
 * URL's IPv6 parser reads it as the socket does and writes plain hex, which ipaddr.js then reads
 * faithfully. A zone (`%eth0`) only picks the interface, so the range is judged without it.
 */
function parseAsSocketReads(address: string): ipaddr.IPv4 | ipaddr.IPv6 | undefined {
  const family = isIP(address);
  if (family === 4) return ipaddr.IPv4.parse(address);
  if (family !== 6) return undefined;
  const [withoutZone] = address.split('%');
  const bracketed = URL.parse(`http://[${withoutZone}]/`)?.hostname;
  return bracketed ? ipaddr.process(bracketed.slice(1, -1)) : undefined;
}

const NAT64_WELL_KNOWN_PREFIX = ipaddr.IPv6.parseCIDR('64:ff9b::/96');
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

function familyWanted(address: VettedAddress, options: LookupOptions): boolean {
  const wanted = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : (options.family ?? 0);
  return wanted === 0 || wanted === address.family;
}

function refusal(problem: UrlProblem): NodeJS.ErrnoException {
  return Object.assign(new Error(problem), { code: ADDRESS_REFUSED });
}
