/**
 * Time that tests measure. On a loaded 2-core machine (this project's, shared with other test runs)
 * timers fire late and processes wait for a core: an answer that the service's limits make due
 * 2,250 ms after its request was seen after 2,279. A test that bounds a duration from above allows
 * for that, and is built so that what its bound tells apart (an answer at the end of its budget,
 * against one held until a lock five budgets long is gone) stays further apart than the allowance.
 */

/** What a loaded machine may add to a duration that a test measures. */
export const LOADED_MACHINE_SLACK_MS = 1000;

/**
 * How late after DB_TIMEOUT_MS a request that needs the database may be answered, measured by its
 * caller from the sending: the service's processing limit answers it 503 at DB_TIMEOUT_MS + 200 ms
 * at the latest (behaviour §10), and the machine may add its slack.
 */
export const ANSWER_MARGIN_MS = 200 + LOADED_MACHINE_SLACK_MS;

/**
 * How long a browser test waits for the console to show what the service answered (expect.poll,
 * `waitFor`): the answer is prompt, but a loaded machine may hold the browser, the service and the
 * database each for its slack, several times over. Vitest's own poll gives up after one second.
 */
export const SHOWN_WITHIN = { timeout: 10 * LOADED_MACHINE_SLACK_MS };

/** An answer with what a test of time reads of it: its status, body, Retry-After and how long it took. */
export interface TimedAnswer<Body = { code?: string; message?: string } & Record<string, unknown>> {
  status: number;
  body: Body | undefined;
  retryAfter: string | null;
  ms: number;
}

/** The answer `send` gets, timed from the sending to its whole body. */
export async function timedAnswer<Body>(send: () => Promise<Response>): Promise<TimedAnswer<Body>> {
  const started = performance.now();
  const response = await send();
  const text = await response.text();
  return {
    status: response.status,
    body: text ? (JSON.parse(text) as Body) : undefined,
    retryAfter: response.headers.get('retry-after'),
    ms: performance.now() - started,
  };
}
