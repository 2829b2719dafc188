/**
 * One attempt of a delivery (behaviour §13): a POST to the endpoint's URL, a success if it is
 * answered 2xx within the timeout. Redirects are not followed (a 3xx is a failure). The URL is
 * vetted again first (DNS can change since the endpoint was saved), and the connection is made
 * only to addresses the guard has vetted (its `lookup`), so a name that resolves differently
 * between the check and the connection cannot lead anywhere private. At most 1 KiB of the answer
 * is read, and kept in the delivery log whether the attempt succeeded or not. The status decides:
 * an answer whose status came in time keeps it, and as much of its body as came before the time
 * ran out or the connection broke (a 2xx so cut short is a success).
 *
 * Why node:http rather than fetch: fetch's resolver cannot be replaced per request, and the guard
 * must decide which address the connection goes to.
 */
import http from 'node:http';
import https from 'node:https';
import { guardedLookup, vetUrl, type UrlGuardOptions } from './url-guard.ts';
import { inWebhookSpan } from '../../platform/tracing/spans.ts';

/** The most of an answer's body read, and kept in the log. */
const MAX_ANSWER_BYTES = 1024;

export interface AttemptResult {
  succeeded: boolean;
  statusCode: number | null;
  /** What went wrong, for the delivery log; null on success. */
  error: string | null;
  /** The first KiB of the answer's body (valid UTF-8, cut between characters); null without an answer. */
  responseBody: string | null;
}

/** Connections kept open between attempts, per scheme; their lookups answer vetted addresses only. */
export class Sender {
  readonly #guard: UrlGuardOptions;
  readonly #timeoutMs: number;
  readonly #agents: { 'http:': http.Agent; 'https:': https.Agent };

  constructor(guard: UrlGuardOptions, timeoutMs: number) {
    this.#guard = guard;
    this.#timeoutMs = timeoutMs;
    const lookup = guardedLookup(guard);
    this.#agents = {
      'http:': new http.Agent({ keepAlive: true, lookup }),
      'https:': new https.Agent({ keepAlive: true, lookup }),
    };
  }

  /**
   * One attempt; `stop` abandons it (the service is stopping). WEBHOOK_TIMEOUT_MS bounds all of it,
   * the resolution of the URL's host included.
   */
  post(url: string, headers: Record<string, string>, body: string, stop: AbortSignal): Promise<AttemptResult> {
    // With tracing on, the attempt is a span, and `traceparent` tells the receiver its trace.
    return inWebhookSpan(url, headers, (sent) => this.#attempt(url, sent, body, stop));
  }

  async #attempt(
    url: string,
    headers: Record<string, string>,
    body: string,
    stop: AbortSignal,
  ): Promise<AttemptResult> {
    const signal = AbortSignal.any([AbortSignal.timeout(this.#timeoutMs), stop]);
    try {
      const vetting = await untilAborted(vetUrl(url, this.#guard), signal);
      if (vetting.problem !== undefined) return unanswered(vetting.problem);
      return await this.#request(new URL(url), headers, body, signal);
    } catch (error) {
      return unanswered(describe(error, this.#timeoutMs));
    }
  }

  #request(url: URL, headers: Record<string, string>, body: string, signal: AbortSignal): Promise<AttemptResult> {
    const secure = url.protocol === 'https:';
    const request = (secure ? https : http).request(url, {
      method: 'POST',
      agent: this.#agents[secure ? 'https:' : 'http:'],
      headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      signal,
    });
    return new Promise((resolve, reject) => {
      // Set once the status line and headers are in: from then on the attempt has its answer, and
      // whatever cuts the body short (the time limit, a stop, a broken connection) ends the read
      // with the part that arrived (behaviour §13).
      let answered: (() => void) | undefined;
      request.on('error', (error) => (answered ? answered() : reject(error)));
      request.on('response', (response) => {
        const statusCode = response.statusCode ?? 0;
        const chunks: Buffer[] = [];
        let length = 0;
        let finished = false;
        const finish = () => {
          if (finished) return;
          finished = true;
          const answer = utf8Prefix(Buffer.concat(chunks), MAX_ANSWER_BYTES);
          const succeeded = statusCode >= 200 && statusCode < 300;
          const error = succeeded ? null : failure(statusCode, answer);
          resolve({ succeeded, statusCode, error, responseBody: answer });
        };
        answered = finish;
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          length += chunk.length;
          // Enough for the log: the rest is not read, and the connection is not kept.
          if (length >= MAX_ANSWER_BYTES) {
            response.destroy();
            finish();
          }
        });
        response.on('end', finish);
        response.on('error', finish);
        response.on('close', finish);
      });
      request.end(body);
    });
  }

  close(): void {
    this.#agents['http:'].destroy();
    this.#agents['https:'].destroy();
  }
}

/** `work`, or the signal's reason once it aborts (a resolution that hangs is not waited for). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const abort = () => reject(signal.reason as Error);
    signal.addEventListener('abort', abort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', abort));
  });
}

/** An attempt that got no answer: the URL refused, no connection, or no answer in time. */
export function unanswered(error: string): AttemptResult {
  return { succeeded: false, statusCode: null, error, responseBody: null };
}

/**
 * The text of at most the first `maxBytes` bytes of `bytes`, itself at most `maxBytes` bytes of
 * UTF-8, so that it fits its column: a character the limit cuts is left out whole, and bytes that
 * are not UTF-8 read as U+FFFD (three bytes each, hence the second cut).
 */
export function utf8Prefix(bytes: Buffer, maxBytes: number): string {
  // Streaming holds back a character the cut leaves incomplete, instead of reading it as U+FFFD.
  const text = new TextDecoder('utf-8', { ignoreBOM: true }).decode(bytes.subarray(0, maxBytes), { stream: true });
  const encoded = Buffer.from(text, 'utf8');
  if (encoded.length <= maxBytes) return text;
  let end = maxBytes;
  // Back to the first byte of the character the limit falls in (continuation bytes are 10xxxxxx).
  while ((encoded[end]! & 0xc0) === 0x80) end--;
  return encoded.subarray(0, end).toString('utf8');
}

function failure(statusCode: number, answer: string): string {
  const what = statusCode >= 300 && statusCode < 400 ? `Redirect ${statusCode} (not followed)` : `HTTP ${statusCode}`;
  return answer.trim() === '' ? what : `${what}: ${answer}`;
}

function describe(error: unknown, timeoutMs: number): string {
  const { name, code, message } = error as { name?: string; code?: string; message?: string };
  if (name === 'TimeoutError' || name === 'AbortError') return `No answer within ${timeoutMs} ms`;
  return code ? `${code}: ${message ?? ''}`.trim() : (message ?? String(error));
}
