/**
 * What `npm run bench` adds to the service to measure what it costs the scenarios (BENCH_EXTRAS):
 * loads held open while they run, and the metrics listener. Each says in a target line of the
 * bench whether it was really there: the held streams all connected, the listener answered.
 */
import type { ServiceProcess } from '../tests/support/process.ts';
import { createWatcher, openSubscriptions, type Watcher } from './subscriptions.ts';

/** One line of the bench's targets. */
export interface Check {
  target: string;
  value: string;
  pass: boolean;
}

/**
 * A load held open on a service while a scenario runs: `hold` resolves once it is established,
 * with the function that closes it and says whether it held (the target, without the scenario).
 */
export interface HeldLoad {
  name: string;
  hold: (server: ServiceProcess) => Promise<() => Promise<Check>>;
}

/** At most this many organizations watched: 1,000 subscriptions are 10 to each. */
const WATCHED_ORGANIZATIONS = 100;

/**
 * `count` audit event subscriptions (server-sent events on /trpc, as the typed client opens them)
 * to quiet organizations of a user of their own: no scenario changes them, so what the scenarios
 * pay is holding the streams (and the feed polling for their organizations), not delivering events.
 * The user and the organizations are made in the database on the first hold and kept.
 */
export function heldSubscriptions(count: number): HeldLoad {
  let watcher: Promise<Watcher> | undefined;
  return {
    name: `${count.toLocaleString('en')} subscriptions held`,
    async hold(server) {
      watcher ??= createWatcher(server.baseUrl, 'bench-watcher', Math.min(count, WATCHED_ORGANIZATIONS));
      const { token, organizationIds } = await watcher;
      const subscriptions = await openSubscriptions({ baseUrl: server.baseUrl, token, organizationIds, count });
      return async () => {
        // Read before closing: streams ended by the close count as neither dropped nor failed.
        const { connected, errors, dropped, pings, events } = subscriptions.counters;
        await subscriptions.close();
        return {
          target: `all ${count} connected, none failed or dropped`,
          value: `${connected} connected, ${errors} failed, ${dropped} dropped, ${pings} pings, ${events} events`,
          pass: connected === count && errors === 0 && dropped === 0,
        };
      };
    },
  };
}

/**
 * One scrape of the metrics listener after the scenarios ran on it: it must answer 200 and have
 * counted their requests, or the setting was not really on.
 */
export async function scrapeMetrics(url: string): Promise<Check> {
  const response = await fetch(url).catch(() => undefined);
  const text = response?.ok ? await response.text() : '';
  // Every series of the request histogram's count: one per route, method and status.
  const counts = text.matchAll(/^http_request_duration_seconds_count(?:\{.*\})? (\S+)$/gm);
  const requests = [...counts].reduce((sum, [, value]) => sum + Number(value), 0);
  return {
    target: 'GET /metrics on METRICS_PORT after the runs: 200, with their requests counted',
    value: `${response?.status ?? 'no answer'}, ${requests} requests counted`,
    pass: response?.status === 200 && requests > 0,
  };
}
