/**
 * The requests under way with each organization key (behaviour §16): a revocation waits for those
 * under way with its key when it committed, but its own request, and no longer than its limit.
 */
import { describe, expect, it } from 'vitest';
import type { Caller } from '../../server/platform/auth/tokens.ts';
import { KeyRequestsInFlight } from '../../server/platform/authorization/key-requests.ts';

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

const keyOf = (secretHash: string): Caller => ({ kind: 'organization_key', secretHash });

describe('the requests under way with each key', () => {
  it('are waited for until every one is answered, whatever other keys do', async () => {
    const requests = new KeyRequestsInFlight(A_DAY_MS);
    const first = answer();
    const second = answer();
    const otherKey = answer();
    requests.enter(keyOf('hash-a'), () => first.answered);
    requests.enter(keyOf('hash-a'), () => second.answered);
    requests.enter(keyOf('hash-b'), () => otherKey.answered);
    const waited = requests.othersAnswered('hash-a', answer().answered);
    first.send();
    expect(await isSettled(waited)).toBe(false);
    second.send();
    expect(await isSettled(waited)).toBe(true);
  });

  it('are not entered when their caller is a person', async () => {
    const requests = new KeyRequestsInFlight(A_DAY_MS);
    const person: Caller = { kind: 'person', userId: 'hash-a', tokenRole: undefined, verifiedEmail: undefined };
    requests.enter(person, () => answer().answered);
    expect(await isSettled(requests.othersAnswered('hash-a', answer().answered))).toBe(true);
  });

  it("are not waited for when it is the revocation's own request, or once answered", async () => {
    const requests = new KeyRequestsInFlight(A_DAY_MS);
    const own = answer();
    requests.enter(keyOf('hash-a'), () => own.answered);
    expect(await isSettled(requests.othersAnswered('hash-a', own.answered))).toBe(true);
    const earlier = answer();
    requests.enter(keyOf('hash-a'), () => earlier.answered);
    earlier.send();
    await isSettled(earlier.answered);
    expect(await isSettled(requests.othersAnswered('hash-a', own.answered))).toBe(true);
  });

  it('are waited for no longer than the limit', async () => {
    const requests = new KeyRequestsInFlight(20);
    requests.enter(keyOf('hash-a'), () => answer().answered);
    const waited = requests.othersAnswered('hash-a', answer().answered);
    expect(await isSettled(waited)).toBe(false);
    await expect(waited).resolves.toBeUndefined();
  });
});
