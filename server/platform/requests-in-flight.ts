/**
 * The requests this instance is answering, by what a change may make stale: a change is answered
 * only once the requests of that kind under way when it committed have been answered, so that none
 * of them, which may have read before the commit, is answered after it with what it changed.
 * - Each organization key's requests, by its secret's hash (entered before they read anything, the
 *   key's id not known yet): a revocation waits for them, so none is answered 2xx after it
 *   (behaviour §16).
 * - Each organization's answers of who may do what (the permission check and read, behaviour §11):
 *   every change of the organization waits for them.
 *
 * Kept per instance and not shared: on another instance, a request sent after the change's answer
 * reads what it changed, and one already under way there cannot be told apart from one answered
 * just before the change.
 */
import type { Caller } from './auth/tokens.ts';
import { endsWithin } from './ends-within.ts';

/** A request being answered, as a change waits for it (the HTTP layer makes it from the response). */
export interface Answering {
  /** Settles once the request has been answered (or its connection closed); the same promise each time. */
  answered(): Promise<void>;
  /** Calls `callback` once the request has been answered, without a promise (the common case: nothing waits). */
  onAnswered(callback: () => void): void;
}

export class RequestsInFlight {
  readonly #answering = new Map<string, Set<Answering>>();
  /**
   * The longest a change waits. Requests under way are answered within milliseconds unless the
   * database stalls, and then they end 503, not with what they read; the change, committed, must
   * not outwait its own processing limit.
   */
  readonly #waitLimitMs: number;

  constructor(waitLimitMs: number) {
    this.#waitLimitMs = waitLimitMs;
  }

  /** Enters a request under `key`; it leaves once answered. */
  enter(key: string, request: Answering): void {
    let answering = this.#answering.get(key);
    if (!answering) {
      answering = new Set();
      this.#answering.set(key, answering);
    }
    if (answering.has(request)) return;
    const entered = answering;
    entered.add(request);
    request.onAnswered(() => {
      entered.delete(request);
      if (entered.size === 0 && this.#answering.get(key) === entered) this.#answering.delete(key);
    });
  }

  /**
   * Settles once every request under one of `keys` that is under way now has been answered, but
   * the change's own, `own` (a key revoking itself, or a batch of calls).
   */
  async othersAnswered(keys: Iterable<string>, own: Answering): Promise<void> {
    const others = [...keys].flatMap((key) => [...(this.#answering.get(key) ?? [])]).filter((one) => one !== own);
    if (others.length === 0) return;
    await endsWithin(Promise.all(others.map((request) => request.answered())), this.#waitLimitMs);
  }
}

/** Where an organization key's requests are entered: by the hash of its secret. */
export const keyRequests = (secretHash: string) => `key:${secretHash}`;

/** Where an organization's answers of who may do what are entered. */
export const accessAnswers = (organizationId: string) => `access:${organizationId}`;

/** Enters a request whose caller is an organization key, under its key; any other caller is not. */
export function enterKeyRequest(requests: RequestsInFlight, caller: Caller, request: Answering): void {
  if (caller.kind === 'organization_key') requests.enter(keyRequests(caller.secretHash), request);
}
