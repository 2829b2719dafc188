/**
 * The requests under way that a change waits for (behaviour §11, §16): those under its keys when it
 * committed, but its own request, and no longer than its limit.
 */
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../server/platform/auth/tokens.ts';
import {
  enterKeyRequest,
  keyRequests,
  RequestsInFlight,
  type Answering,
} from '../../server/platform/requests-in-flight.ts';

/** A request being answered, its answer sent by the test. */
function request(): Answering & { send: () => void } {
  let sent = false;
  const callbacks: Array<() => void> = [];
  const answered = new Promise<void>((resolve) => callbacks.push(resolve));
  return {
    answered: () => answered,
    onAnswered: (callback) => (sent ? callback() : callbacks.push(callback)),
    send: () => {
      sent = true;
      for (const callback of callbacks.splice(0)) callback();
    },
  };
}

/** Whether `promise` has settled once the pending callbacks have run. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

const A_DAY_MS = 86_400_000;
/** A limit no pause of a loaded machine between two statements of the test reaches. */
const LIMIT_MS = 2000;

describe('the requests a change waits for', () => {
  it('are waited for until every one under its keys is answered, whatever other keys have', async () => {
    const requests = new RequestsInFlight(A_DAY_MS);
    const [first, second, otherKey] = [request(), request(), request()];
    requests.enter('access:a', first);
    requests.enter('access:b', second);
    requests.enter('access:c', otherKey);
    const waited = requests.othersAnswered(['access:a', 'access:b'], request());
    first.send();
    expect(await isSettled(waited)).toBe(false);
    second.send();
    expect(await isSettled(waited)).toBe(true);
  });

  it("are not waited for when it is the change's own request, or once answered", async () => {
    const requests = new RequestsInFlight(A_DAY_MS);
    const own = request();
    requests.enter('access:a', own);
    expect(await isSettled(requests.othersAnswered(['access:a'], own))).toBe(true);
    const earlier = request();
    requests.enter('access:a', earlier);
    earlier.send();
    expect(await isSettled(requests.othersAnswered(['access:a'], own))).toBe(true);
  });

  it("enter an organization key's request under its key, and a person's not at all", async () => {
    const requests = new RequestsInFlight(A_DAY_MS);
    const keyed = request();
    const key: Caller = { kind: 'organization_key', secretHash: 'hash-a' };
    const person: Caller = { kind: 'person', userId: 'hash-a', tokenRole: undefined, verifiedEmail: undefined };
    enterKeyRequest(requests, key, keyed);
    enterKeyRequest(requests, person, request());
    const waited = requests.othersAnswered([keyRequests('hash-a')], request());
    expect(await isSettled(waited)).toBe(false);
    keyed.send();
    expect(await isSettled(waited)).toBe(true);
  });

  it('are waited for no longer than the limit', async () => {
    const requests = new RequestsInFlight(LIMIT_MS);
    requests.enter('access:a', request());
    const waited = requests.othersAnswered(['access:a'], request());
    expect(await isSettled(waited)).toBe(false);
    await expect(waited).resolves.toBeUndefined();
  });
});
