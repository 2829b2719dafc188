/**
 * server/modules/webhooks/url-guard.ts: the SSRF guard on webhook URLs (behaviour §13). No network
 * at all: every name is answered by a stub resolver, and `guardedLookup` is called directly.
 */
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  ADDRESS_REFUSED,
  guardedLookup,
  isPublicAddress,
  MAX_WEBHOOK_URL_LENGTH,
  urlAddressProblem,
  urlFormProblem,
  vetUrl,
  type UrlGuardOptions,
} from '../../server/modules/webhooks/url-guard.ts';

/** Addresses the guard must refuse, by the range that makes them so. */
const REFUSED: Record<string, string[]> = {
  loopback: ['127.0.0.1', '127.255.255.254', '::1'],
  private: ['10.0.0.1', '10.255.255.255', '172.16.0.1', '172.31.255.255', '192.168.0.1', '192.168.255.255'],
  'link-local': ['169.254.0.1', '169.254.169.254', 'fe80::1', 'febf:ffff::1', 'fe80::1%eth0'],
  'unique-local': ['fc00::1', 'fd00:ec2::254', 'fdff:ffff::1'],
  unspecified: ['0.0.0.0', '::', '0.1.2.3', '0.255.255.255'],
  multicast: ['224.0.0.1', '239.255.255.250', 'ff02::1', 'ff0e::1'],
  broadcast: ['255.255.255.255'],
  'carrier-grade NAT': ['100.64.0.1', '100.127.255.255'],
  'reserved and benchmarking': ['240.0.0.1', '192.0.0.1', '198.18.0.1', '198.19.255.255', '2001:2::1', '4000::1'],
  documentation: ['192.0.2.1', '198.51.100.7', '203.0.113.9', '2001:db8::1', '3fff::1'],
  'deprecated site-local and discard': ['fec0::1', '100::1'],
  'IPv4-mapped private': ['::ffff:127.0.0.1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::ffff:7f00:1'],
  'IPv4-translated and IPv4-compatible': ['::ffff:0:7f00:1', '::ffff:0:808:808', '::127.0.0.1', '::8.8.8.8'],
  'NAT64 with a private IPv4 inside': ['64:ff9b::10.0.0.1', '64:ff9b::127.0.0.1', '64:ff9b::a9fe:a9fe'],
  'NAT64 local-use prefix': ['64:ff9b:1::808:808'],
  '6to4 and Teredo': ['2002:a00:1::1', '2002:808:808::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2'],
  'not an address': ['localhost', '127.1', '2130706433', '[::1]', '', 'example.com'],
};

/** Public unicast, including the edges of the refused ranges and mapped or NAT64 forms of public IPv4. */
const PUBLIC = [
  '1.1.1.1',
  '8.8.8.8',
  '9.255.255.255',
  '11.0.0.1',
  '100.63.255.255',
  '100.128.0.1',
  '169.253.255.255',
  '172.15.255.255',
  '172.32.0.1',
  '192.169.0.1',
  '223.255.255.255',
  '2606:4700:4700::1111',
  '2001:4860:4860::8888',
  '2a00:1450:4001:80b::200e',
  '::ffff:1.1.1.1',
  '::ffff:808:808',
  '64:ff9b::1.1.1.1',
  '64:ff9b::808:808',
];

const STRICT: UrlGuardOptions = { allowHttp: false, allowPrivate: false };

/** A resolver that knows only the names given, and fails like the system's for any other. */
function resolvingTo(records: Record<string, string[]>) {
  const asked: string[] = [];
  const resolve = (host: string) => {
    asked.push(host);
    const addresses = records[host];
    if (!addresses)
      return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
    return Promise.resolve(addresses);
  };
  return { resolve, asked };
}

interface LookupAnswer {
  error: NodeJS.ErrnoException | null;
  address: string | LookupAddress[];
  family?: number;
}

/** Calls a lookup as `net.connect` would, without opening anything. */
function lookUp(lookup: LookupFunction, hostname: string, options: Parameters<LookupFunction>[1]) {
  return new Promise<LookupAnswer>((resolve) =>
    lookup(hostname, options, (error, address, family) => resolve({ error, address, family })),
  );
}

describe('which addresses a webhook may call (behaviour §13)', () => {
  for (const [range, addresses] of Object.entries(REFUSED)) {
    it(`refuses ${range}`, () => {
      for (const address of addresses) expect(isPublicAddress(address), address).toBe(false);
    });
  }

  it('allows public unicast, IPv4 and IPv6, mapped and NAT64 forms judged by the IPv4 inside', () => {
    for (const address of PUBLIC) expect(isPublicAddress(address), address).toBe(true);
  });
});

describe("a webhook URL's form (behaviour §13)", () => {
  it('takes https:// only, unless plain http is allowed', () => {
    expect(urlFormProblem('https://example.com/hook', STRICT)).toBeUndefined();
    expect(urlFormProblem('http://example.com/hook', STRICT)).toBe('Must use https:// (WEBHOOK_ALLOW_HTTP is off)');
    expect(urlFormProblem('HTTP://example.com/hook', STRICT)).toBe('Must use https:// (WEBHOOK_ALLOW_HTTP is off)');
    expect(urlFormProblem('http://example.com/hook', { allowHttp: true })).toBeUndefined();
  });

  it('refuses other schemes even when plain http is allowed', () => {
    for (const url of ['ftp://example.com/', 'file:///etc/passwd', 'javascript:alert(1)', 'wss://example.com/']) {
      expect(urlFormProblem(url, { allowHttp: true }), url).toBe('Must use https:// or http://');
    }
  });

  it('reads the scheme and host in any letter case', () => {
    expect(urlFormProblem('HTTPS://EXAMPLE.COM/Hook', STRICT)).toBeUndefined();
  });

  it('refuses a user name or password', () => {
    for (const url of [
      'https://user@example.com/',
      'https://user:secret@example.com/',
      'https://:secret@example.com/',
    ]) {
      expect(urlFormProblem(url, STRICT), url).toBe('Must not hold a user name or password');
    }
  });

  it(`takes at most ${MAX_WEBHOOK_URL_LENGTH} characters`, () => {
    const prefix = 'https://example.com/';
    const longest = prefix + 'a'.repeat(MAX_WEBHOOK_URL_LENGTH - prefix.length);
    expect(longest).toHaveLength(2048);
    expect(urlFormProblem(longest, STRICT)).toBeUndefined();
    expect(urlFormProblem(`${longest}a`, STRICT)).toBe('Must be at most 2048 characters');
  });

  it('refuses what is not an absolute URL with a host', () => {
    for (const url of ['', 'example.com/hook', '/hook', 'https://', 'https://exa mple.com/', 'https://[::1/']) {
      expect(urlFormProblem(url, STRICT), url).toMatch(/^Must be an absolute URL with a host/);
    }
  });
});

describe('where a webhook URL leads (behaviour §13)', () => {
  it('judges an IP literal, bracketed IPv6 included, without resolving it', async () => {
    const { resolve, asked } = resolvingTo({});
    for (const url of ['https://127.0.0.1/', 'https://[::1]/', 'https://[::ffff:127.0.0.1]/', 'https://[fe80::1]/']) {
      expect(await urlAddressProblem(url, { ...STRICT, resolve }), url).toMatch(
        /is not a public address \(.+; WEBHOOK_ALLOW_PRIVATE is off\)$/,
      );
    }
    expect(await urlAddressProblem('https://10.0.0.1:8443/hook', { ...STRICT, resolve })).toBe(
      'Host 10.0.0.1 is not a public address (private; WEBHOOK_ALLOW_PRIVATE is off)',
    );
    expect(await urlAddressProblem('https://[2606:4700:4700::1111]/', { ...STRICT, resolve })).toBeUndefined();
    expect(await urlAddressProblem('https://1.1.1.1/', { ...STRICT, resolve })).toBeUndefined();
    expect(asked).toEqual([]);
  });

  it('judges the other spellings of an IPv4 literal as the address they are', async () => {
    const { resolve, asked } = resolvingTo({});
    for (const url of ['https://0x7f.1/', 'https://2130706433/', 'https://127.0.0.1./', 'https://0177.0.0.1/']) {
      expect(await urlAddressProblem(url, { ...STRICT, resolve }), url).toBe(
        'Host 127.0.0.1 is not a public address (loopback; WEBHOOK_ALLOW_PRIVATE is off)',
      );
    }
    expect(asked).toEqual([]);
  });

  it('refuses a name when any of its addresses is private, as a rebinding trick would answer', async () => {
    const { resolve } = resolvingTo({ 'rebind.example': ['93.184.215.14', '10.0.0.7'] });
    expect(await urlAddressProblem('https://rebind.example/hook', { ...STRICT, resolve })).toBe(
      'Host rebind.example resolves to 10.0.0.7, which is not a public address (private; WEBHOOK_ALLOW_PRIVATE is off)',
    );
  });

  it('refuses localhost and any other name by where it resolves, not by how it is spelt', async () => {
    const { resolve } = resolvingTo({ localhost: ['::1', '127.0.0.1'], 'innocent.example': ['169.254.169.254'] });
    expect(await urlAddressProblem('https://localhost/', { ...STRICT, resolve })).toMatch(/resolves to ::1/);
    expect(await urlAddressProblem('https://innocent.example/', { ...STRICT, resolve })).toMatch(
      /resolves to 169\.254\.169\.254, which is not a public address \(link local;/,
    );
  });

  it('answers the vetted addresses of a public name, with their families', async () => {
    const { resolve } = resolvingTo({ 'hooks.example': ['2606:4700::6810:84e5', '104.16.132.229'] });
    expect(await vetUrl('https://hooks.example/in', { ...STRICT, resolve })).toEqual({
      addresses: [
        { address: '2606:4700::6810:84e5', family: 6 },
        { address: '104.16.132.229', family: 4 },
      ],
    });
  });

  it('resolves the host as the URL names it: lower-cased, trailing dot kept', async () => {
    const { resolve, asked } = resolvingTo({ 'hooks.example.': ['8.8.8.8'] });
    expect(await urlAddressProblem('HTTPS://Hooks.EXAMPLE./in', { ...STRICT, resolve })).toBeUndefined();
    expect(asked).toEqual(['hooks.example.']);
  });

  it('refuses a name that does not resolve, or not to IP addresses, even when private ones are allowed', async () => {
    const { resolve } = resolvingTo({ 'empty.example': [], 'odd.example': ['not-an-address'] });
    for (const allowPrivate of [false, true]) {
      const options = { allowHttp: false, allowPrivate, resolve };
      expect(await urlAddressProblem('https://nowhere.example/', options)).toBe(
        'Host nowhere.example does not resolve',
      );
      expect(await urlAddressProblem('https://empty.example/', options)).toBe('Host empty.example does not resolve');
      expect(await urlAddressProblem('https://odd.example/', options)).toBe(
        'Host odd.example resolves to not-an-address, which is not an IP address',
      );
    }
  });

  it('lets private addresses through when allowed', async () => {
    const { resolve } = resolvingTo({ localhost: ['127.0.0.1'], 'mixed.example': ['1.1.1.1', '192.168.1.10'] });
    const options = { allowHttp: true, allowPrivate: true, resolve };
    for (const url of ['http://localhost:8080/', 'https://mixed.example/', 'https://[::1]/', 'https://[fe80::1]/']) {
      expect(await urlAddressProblem(url, options), url).toBeUndefined();
    }
    expect(await vetUrl('https://mixed.example/', options)).toEqual({
      addresses: [
        { address: '1.1.1.1', family: 4 },
        { address: '192.168.1.10', family: 4 },
      ],
    });
  });

  it('reports a problem of form before resolving anything', async () => {
    const { resolve, asked } = resolvingTo({});
    expect(await urlAddressProblem('http://user@hooks.example/', { ...STRICT, resolve })).toBe(
      'Must use https:// (WEBHOOK_ALLOW_HTTP is off)',
    );
    expect(await urlAddressProblem('https://user@hooks.example/', { ...STRICT, resolve })).toBe(
      'Must not hold a user name or password',
    );
    expect(asked).toEqual([]);
  });
});

describe("the guarded lookup a delivery's connection uses (behaviour §13)", () => {
  const { resolve } = resolvingTo({
    'public.example': ['1.1.1.1', '2606:4700:4700::1111'],
    'private.example': ['10.0.0.1'],
    'rebind.example': ['1.1.1.1', '127.0.0.1'],
    'v6only.example': ['2606:4700:4700::1111'],
  });
  const lookup = guardedLookup({ ...STRICT, resolve });

  it('answers the first vetted address, or all of them when asked, as net.connect expects', async () => {
    expect(await lookUp(lookup, 'public.example', {})).toEqual({ error: null, address: '1.1.1.1', family: 4 });
    expect(await lookUp(lookup, 'public.example', { all: true })).toEqual({
      error: null,
      address: [
        { address: '1.1.1.1', family: 4 },
        { address: '2606:4700:4700::1111', family: 6 },
      ],
      family: undefined,
    });
  });

  it('answers only the family asked for', async () => {
    expect(await lookUp(lookup, 'public.example', { family: 6 })).toEqual({
      error: null,
      address: '2606:4700:4700::1111',
      family: 6,
    });
    expect(await lookUp(lookup, 'public.example', { family: 'IPv4', all: true })).toMatchObject({
      address: [{ address: '1.1.1.1', family: 4 }],
    });
    const { error } = await lookUp(lookup, 'v6only.example', { family: 4 });
    expect(error).toMatchObject({
      code: ADDRESS_REFUSED,
      message: 'Host v6only.example has no address of the family asked for',
    });
  });

  it('fails with a refusal instead of answering a private address', async () => {
    for (const hostname of ['private.example', 'rebind.example']) {
      for (const all of [false, true]) {
        const { error } = await lookUp(lookup, hostname, { all });
        expect(error, hostname).toBeInstanceOf(Error);
        expect(error?.code).toBe(ADDRESS_REFUSED);
        expect(error?.message).toMatch(/which is not a public address/);
      }
    }
  });

  it('fails when the name does not resolve', async () => {
    const { error } = await lookUp(lookup, 'nowhere.example', {});
    expect(error).toMatchObject({ code: ADDRESS_REFUSED, message: 'Host nowhere.example does not resolve' });
  });

  it('judges an address handed to it as itself, without resolving', async () => {
    const recorder = resolvingTo({});
    const literalLookup = guardedLookup({ ...STRICT, resolve: recorder.resolve });
    expect(await lookUp(literalLookup, '8.8.8.8', {})).toEqual({ error: null, address: '8.8.8.8', family: 4 });
    expect((await lookUp(literalLookup, '::1', {})).error?.code).toBe(ADDRESS_REFUSED);
    expect(recorder.asked).toEqual([]);
  });

  it('answers private addresses when they are allowed', async () => {
    const permissive = guardedLookup({ allowHttp: false, allowPrivate: true, resolve });
    expect(await lookUp(permissive, 'private.example', {})).toEqual({ error: null, address: '10.0.0.1', family: 4 });
  });
});
