/**
 * server/modules/webhooks/sender.ts and signing.ts (behaviour §13): an attempt goes only where the
 * URL guard allows, to the address it vetted; the signature header is what the Standard Webhooks
 * library computes, one per secret. Names are answered by a stub resolver; the only server is a
 * receiver on 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Sender, utf8Prefix } from '../../server/modules/webhooks/sender.ts';
import { signatureHeader } from '../../server/modules/webhooks/signing.ts';
import type { UrlGuardOptions } from '../../server/modules/webhooks/url-guard.ts';
import { startReceiver, type Receiver } from '../support/webhooks.ts';

/** A name no real resolver knows: only the stub answers it, with the receiver's address. */
const HOST = 'hooks.example.test';
const resolveToLoopback = (host: string) => {
  if (host !== HOST)
    return Promise.reject(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }));
  return Promise.resolve(['127.0.0.1']);
};

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

describe('Sender.post', () => {
  let receiver: Receiver;
  let url: string;
  beforeAll(async () => {
    receiver = await startReceiver();
    url = `http://${HOST}:${new URL(receiver.url()).port}/hook`;
  });
  afterAll(() => receiver.close());

  async function attempt(guard: UrlGuardOptions) {
    const sender = new Sender(guard, 2_000);
    try {
      return await sender.post(url, { 'webhook-id': 'msg_1' }, '{"ok":true}', new AbortController().signal);
    } finally {
      sender.close();
    }
  }

  it('refuses a name that resolves to a loopback address without private addresses allowed, connecting nowhere', async () => {
    const result = await attempt({ allowHttp: true, allowPrivate: false, resolve: resolveToLoopback });
    expect(result).toEqual({
      succeeded: false,
      statusCode: null,
      error: `Host ${HOST} resolves to 127.0.0.1, which is not a public address (loopback; WEBHOOK_ALLOW_PRIVATE is off)`,
      responseBody: null,
    });
    expect(receiver.connections()).toBe(0);
  });

  it('with private addresses allowed, connects to the address the guard vetted', async () => {
    const result = await attempt({ allowHttp: true, allowPrivate: true, resolve: resolveToLoopback });
    // The receiver answers 200 with an empty body.
    expect(result).toEqual({ succeeded: true, statusCode: 200, error: null, responseBody: '' });
    expect(receiver.requests).toMatchObject([
      { method: 'POST', path: '/hook', body: '{"ok":true}', headers: { host: `${HOST}:${new URL(url).port}` } },
    ]);
  });
});

describe('utf8Prefix, the part of an answer the log keeps', () => {
  const bytesOf = (text: string) => Buffer.from(text, 'utf8');

  it('keeps an answer within the limit as it is', () => {
    expect(utf8Prefix(bytesOf('{"ok":true}'), 16)).toBe('{"ok":true}');
    expect(utf8Prefix(bytesOf(''), 16)).toBe('');
    expect(utf8Prefix(bytesOf('\uFEFFé'), 16)).toBe('\uFEFFé');
  });

  it('leaves out whole a character the limit cuts, whatever its length in bytes', () => {
    // '€' is 3 bytes, '😀' 4: the limit falls inside the last one.
    expect(utf8Prefix(bytesOf('ab€'), 4)).toBe('ab');
    expect(utf8Prefix(bytesOf('a😀'), 4)).toBe('a');
    expect(utf8Prefix(bytesOf('a😀b'), 5)).toBe('a😀');
  });

  it('reads bytes that are not UTF-8 as U+FFFD, and stays within the limit in bytes', () => {
    const kept = utf8Prefix(Buffer.from([0x61, 0xff, 0xfe, 0x62]), 4);
    expect(kept).toBe('a\uFFFD');
    expect(Buffer.byteLength(kept)).toBeLessThanOrEqual(4);
    expect(Buffer.byteLength(utf8Prefix(Buffer.alloc(1024, 0xff), 1024))).toBe(1023);
  });
});

describe('signatureHeader', () => {
  const id = 'msg_2mQ8xTzbRh4cLp0v';
  const body = JSON.stringify({ type: 'member.added', data: { role: 'member' } });

  it('is what standardwebhooks signs, for one secret', () => {
    const secret = newSecret();
    const at = new Date(1_790_000_000_000);
    expect(signatureHeader([secret], id, at.getTime() / 1000, body)).toBe(new Webhook(secret).sign(id, at, body));
  });

  it('holds one signature per secret, space-separated, each of which verifies', () => {
    const secrets = [newSecret(), newSecret()];
    const timestamp = Math.floor(Date.now() / 1000);
    const header = signatureHeader(secrets, id, timestamp, body);
    expect(header.split(' ')).toEqual(
      secrets.map((secret) => new Webhook(secret).sign(id, new Date(timestamp * 1000), body)),
    );
    const headers = { 'webhook-id': id, 'webhook-timestamp': String(timestamp), 'webhook-signature': header };
    for (const secret of secrets) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow('No matching signature found');
  });
});
