/**
 * The fixed-rate latency run of `npm run bench`: the load of scenario FIXED_RATE.letter, the
 * 1-permission check, sent at a fixed rate (autocannon's `overallRate`) instead of as fast as it is
 * answered, and the latency of its answers.
 *
 * autocannon paces per connection and per second: a connection sends its share of a second's
 * requests as fast as they are answered, then waits for the next second. One autocannon of 2,000 a
 * second therefore sends them in one burst at the start of each second, which holds both cores
 * (server, MariaDB and autocannon share them) for a good part of it, and measures that contention
 * more than the rate (docs/performance.md has the figures). So the rate is sent by
 * FIXED_RATE.streams autocannons of one connection each, each with its share of the rate, their
 * starts spread evenly over a second: ten short bursts a second, one after the other, close to
 * evenly spaced requests.
 *
 * The latencies are each 2xx answer's own, in fractions of a millisecond, from autocannon's
 * `response` events: its histogram keeps whole milliseconds, and its correction for coordinated
 * omission, whose expected interval it rounds up to 1 ms whatever the rate, adds samples of its own.
 */
import autocannon from 'autocannon';
import type { Check } from './overheads.ts';
import type { Load } from './scenarios.ts';

export const FIXED_RATE = { letter: 'i', requestsPerSecond: 2000, streams: 10, maxP99Ms: 3 };
/** Below this share of the rate, the server did not keep up and the latencies are not of the rate asked for. */
const LEAST_RATE_KEPT = 0.95;

export interface FixedRateFigures {
  /** Answers a second, 2xx or not. */
  answeredPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Non-2xx answers, socket errors and timeouts. */
  failures: number;
}

/** The `share` percentile (nearest rank) of sorted `values`, to 0.01. */
export const percentile = (values: number[], share: number) =>
  Math.round(values[Math.max(0, Math.ceil(share * values.length) - 1)]! * 100) / 100;

/** One autocannon of one connection at `rate` a second: its result, and its 2xx latencies pushed into `latencies`. */
function stream(url: string, options: Load, rate: number, seconds: number, latencies: number[]) {
  return new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      { url, ...options, connections: 1, overallRate: rate, duration: seconds },
      (error, result) => (error ? reject(error as Error) : resolve(result)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      if (statusCode < 300) latencies.push(responseTime);
    });
  });
}

/** `load` against the server at `baseUrl` at FIXED_RATE for `seconds`: the latencies of its 2xx answers. */
export async function atFixedRate(baseUrl: string, load: Load, seconds: number): Promise<FixedRateFigures> {
  const { path, ...options } = load;
  const { requestsPerSecond, streams } = FIXED_RATE;
  const latencies: number[] = [];
  const results = await Promise.all(
    Array.from({ length: streams }, async (_, index) => {
      await new Promise((resolve) => setTimeout(resolve, (index * 1000) / streams));
      return stream(`${baseUrl}${path ?? ''}`, options, requestsPerSecond / streams, seconds, latencies);
    }),
  );
  latencies.sort((a, b) => a - b);
  const sum = (pick: (result: autocannon.Result) => number) =>
    results.reduce((total, result) => total + pick(result), 0);
  // NaN when no answer was a 2xx: the check then fails.
  const at = (share: number) => (latencies.length ? percentile(latencies, share) : NaN);
  return {
    answeredPerSecond: Math.round(sum((result) => result.requests.total) / seconds),
    p50Ms: at(0.5),
    p99Ms: at(0.99),
    maxMs: at(1),
    failures: sum((result) => result.non2xx + result.errors + result.timeouts),
  };
}

/** The target line: p99 within FIXED_RATE.maxP99Ms, the rate kept, nothing failed. */
export function fixedRateCheck(scenarioTitle: string, figures: FixedRateFigures): Check {
  const { requestsPerSecond, streams, maxP99Ms } = FIXED_RATE;
  return {
    target: `${scenarioTitle} at ${requestsPerSecond.toLocaleString('en')} req/s (${streams} staggered connections): p99 ≤ ${maxP99Ms} ms, the rate kept, no non-2xx or socket errors`,
    value: `p99 ${figures.p99Ms} ms (p50 ${figures.p50Ms}, max ${figures.maxMs}), ${figures.answeredPerSecond} req/s, ${figures.failures} failed`,
    pass:
      figures.p99Ms <= maxP99Ms &&
      figures.answeredPerSecond >= LEAST_RATE_KEPT * requestsPerSecond &&
      figures.failures === 0,
  };
}
