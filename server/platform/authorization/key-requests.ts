/**
 * The requests this instance is answering with each organization key (behaviour §16). Each request
 * reads its key, but a request that read it just before a revocation committed found it live, and
 * may be answered after the revocation is. So a revocation is answered only once the requests with
 * that key under way on its instance have been answered: none of them is answered 2xx after it. A
 * request is entered before it reads anything, by its secret's hash (its key's id is not known yet).
 *
 * Kept per instance and not shared: on another instance, a request sent after the revocation's answer
 * reads the revoked key, and one already under way there cannot be told apart from one answered
 * just before the revocation.
 */
import type { Caller } from '../auth/tokens.ts';

export class KeyRequestsInFlight {
  readonly #answers = new Map<string, Set<Promise<void>>>();
  /**
   * The longest a revocation waits. Requests under way are answered within milliseconds unless the
   * database stalls, and then they end 503, not 2xx; the revocation, committed, must not outwait its
   * own processing limit.
   */
  readonly #waitLimitMs: number;

  constructor(waitLimitMs: number) {
    this.#waitLimitMs = waitLimitMs;
  }

  /**
   * Enters a request whose caller is an organization key (any other caller is not entered); it
   * leaves once `answered()` settles (it never rejects).
   */
  enter(caller: Caller, answeredOf: () => Promise<void>): void {
    if (caller.kind !== 'organization_key') return;
    const { secretHash } = caller;
    const answered = answeredOf();
    let answers = this.#answers.get(secretHash);
    if (!answers) {
      answers = new Set();
      this.#answers.set(secretHash, answers);
    }
    if (answers.has(answered)) return;
    const entered = answers;
    entered.add(answered);
    void answered.then(() => {
      entered.delete(answered);
      if (entered.size === 0 && this.#answers.get(secretHash) === entered) this.#answers.delete(secretHash);
    });
  }

  /**
   * Settles once every request with the key of this hash that is under way now has been answered,
   * but `own`: the revocation's own request (a key revoking itself, or a batch of calls).
   */
  async othersAnswered(secretHash: string, own: Promise<void>): Promise<void> {
    const others = [...(this.#answers.get(secretHash) ?? [])].filter((answered) => answered !== own);
    if (others.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, this.#waitLimitMs)));
    await Promise.race([Promise.all(others), limit]);
    clearTimeout(timer);
  }
}
