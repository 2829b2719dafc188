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

export class RequestsInFlight {
  readonly #answers = new Map<string, Set<Promise<void>>>();
  /**
   * The longest a change waits. Requests under way are answered within milliseconds unless the
   * database stalls, and then they end 503, not with what they read; the change, committed, must
   * not outwait its own processing limit.
   */
  readonly #waitLimitMs: number;

  constructor(waitLimitMs: number) {
    this.#waitLimitMs = waitLimitMs;
  }

  /** Enters a request under `key`; it leaves once `answered` settles (it never rejects). */
  enter(key: string, answered: Promise<void>): void {
    let answers = this.#answers.get(key);
    if (!answers) {
      answers = new Set();
      this.#answers.set(key, answers);
    }
    if (answers.has(answered)) return;
    const entered = answers;
    entered.add(answered);
    void answered.then(() => {
      entered.delete(answered);
      if (entered.size === 0 && this.#answers.get(key) === entered) this.#answers.delete(key);
    });
  }

  /**
   * Settles once every request under one of `keys` that is under way now has been answered, but
   * the change's own (a key revoking itself, or a batch of calls), whose answer `ownOf` gives.
   */
  async othersAnswered(keys: Iterable<string>, ownOf: () => Promise<void>): Promise<void> {
    const under = [...keys].flatMap((key) => [...(this.#answers.get(key) ?? [])]);
    if (under.length === 0) return;
    const own = ownOf();
    const others = under.filter((one) => one !== own);
    if (others.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#waitLimitMs)));
    await Promise.race([Promise.all(others), limit]);
    clearTimeout(timer);
  }
}

/** Where an organization key's requests are entered: by the hash of its secret. */
export const keyRequests = (secretHash: string) => `key:${secretHash}`;

/** Where an organization's answers of who may do what are entered. */
export const accessAnswers = (organizationId: string) => `access:${organizationId}`;

/** Enters a request whose caller is an organization key, under its key; any other caller is not. */
export function enterKeyRequest(requests: RequestsInFlight, caller: Caller, answered: () => Promise<void>): void {
  if (caller.kind === 'organization_key') requests.enter(keyRequests(caller.secretHash), answered());
}
