/**
 * The requests under way that a change waits for (behaviour §11, §16): those under its keys when it
 * committed, but its own request, and no longer than its limit.
 */
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../server/platform/auth/tokens.ts';
import { enterKeyRequest, keyRequests, RequestsInFlight } from '../../server/platform/requests-in-flight.ts';

/** A request's answer, settled by the test. */
function answer(): { answered: Promise<void>; send: () => void } {
  let send!: () => void;
  const answered = new Promise<void>((resolve) => (send = resolve));
  return { answered, send };
}

/** Whether `promise` has settled once the pending callbacks have run. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  void promise.then(() => (settled = true));
  await new Promise((resolve) => setImmediate(resolve));
  return settled;
}

const A_DAY_MS = 86_400_000;

describe('the requests a change waits for', () => {
  it('are waited for until every one under its keys is answered, whatever other keys have', async () => {
    const requests = new RequestsInFlight(A_DAY_MS);
    const first = answer();
    const second = answer();
    const otherKey = answer();
    requests.enter('access:a', first.answered);
    requests.enter('access:b', second.answered);
    requests.enter('access:c', otherKey.answered);
    const waited = requests.othersAnswered(['access:a', 'access:b'], () => answer().answered);
    first.send();
    expect(await isSettled(waited)).toBe(false);
    second.send();
    expect(await isSettled(waited)).toBe(true);
  });

  it("are not waited for when it is the change's own request, or once answered", async () => {
    const requests = new RequestsInFlight(A_DAY_MS);
    const own = answer();
    requests.enter('access:a', own.answered);
    expect(await isSettled(requests.othersAnswered(['access:a'], () => own.answered))).toBe(true);
    const earlier = answer();
    requests.enter('access:a', earlier.answered);
    earlier.send();
    await isSettled(earlier.answered);
    expect(await isSettled(requests.othersAnswered(['access:a'], () => own.answered))).toBe(true);
  });

  it("enter an organization key's request under its key, and a person's not at all", async () => {
    const requests = new RequestsInFlight(A_DAY_MS);
    const keyed = answer();
    const key: Caller = { kind: 'organization_key', secretHash: 'hash-a' };
    const person: Caller = { kind: 'person', userId: 'hash-a', tokenRole: undefined, verifiedEmail: undefined };
    enterKeyRequest(requests, key, () => keyed.answered);
    enterKeyRequest(requests, person, () => answer().answered);
    const waited = requests.othersAnswered([keyRequests('hash-a')], () => answer().answered);
    expect(await isSettled(waited)).toBe(false);
    keyed.send();
    expect(await isSettled(waited)).toBe(true);
  });

  it('are waited for no longer than the limit', async () => {
    const requests = new RequestsInFlight(20);
    requests.enter('access:a', answer().answered);
    const waited = requests.othersAnswered(['access:a'], () => answer().answered);
    expect(await isSettled(waited)).toBe(false);
    await expect(waited).resolves.toBeUndefined();
  });
});
