/**
 * The service's background jobs: the purge of expired idempotency keys (hourly), the sweep of
 * expired memberships (behaviour §11) and webhook delivery (behaviour §13). They start once the
 * service listens and stop with it (app.ts, `close`), while the requests under way finish.
 *
 * A job told to stop starts no new run, and the run under way ends at its next step. On a database
 * that answers, that is within DB_TIMEOUT_MS: the session ends each statement within it (orm.ts),
 * and each of a sweep's transactions has that budget. A database that does not answer (frozen, or a
 * network that holds its packets) ends nothing, and nothing on this side ends a statement it keeps:
 * a request waiting on it is answered 503 by its processing limit, but a stop that waited for a
 * job's run waited for ever, until SHUTDOWN_TIMEOUT_MS exited 1. So the stop waits for a run
 * DB_TIMEOUT_MS at most (webhook delivery: 2 s, dispatcher.ts), then leaves it with a line that
 * says so. Its connection is dropped as the pool ends (mysql-pool.ts, `endWithin`), the database
 * rolls back what it left open, and a later run, of this instance or another, does what it left.
 */
import type { Logger } from 'pino';
import type { Settings } from './platform/config.ts';
import type { Db } from './platform/database/transaction.ts';
import { endsWithin } from './platform/ends-within.ts';
import { purgeExpiredKeysHourly } from './platform/idempotency.ts';
import { sweepExpiredMemberships } from './modules/members/expiry-sweep.ts';
import { Dispatcher, STOP_WAIT_MS, type DeliveryObserver } from './modules/webhooks/dispatcher.ts';
import { guardOptions } from './modules/webhooks/guard.ts';

/**
 * EXPIRY_SWEEP_INTERVAL_MS, how often this instance sweeps expired memberships, is for tests only
 * (they cannot wait 15 s for each sweep): not a setting, and so not in docs/configuration.md.
 */
function sweepIntervalForTests(): number | undefined {
  const ms = Number(process.env.EXPIRY_SWEEP_INTERVAL_MS);
  return ms > 0 ? ms : undefined;
}

/** Starts the jobs; the function returned stops them, within the bounds above. */
export function startBackgroundJobs(
  db: Db,
  settings: Settings,
  logger: Logger,
  deliveryObserver?: DeliveryObserver,
): () => Promise<void> {
  const stopPurgingKeys = purgeExpiredKeysHourly(db, (error) =>
    logger.warn({ err: error }, 'idempotency keys: deleting expired keys failed; tried again in an hour'),
  );
  const webhooks = new Dispatcher(db, {
    guard: guardOptions(settings),
    timeoutMs: settings.WEBHOOK_TIMEOUT_MS,
    retrySchedule: settings.webhookRetrySchedule,
    disableAfterMs: settings.WEBHOOK_DISABLE_AFTER_HOURS * 3_600_000,
    leaseMs: settings.WEBHOOK_LEASE_MS,
    concurrency: settings.WEBHOOK_CONCURRENCY,
    pollMs: settings.WEBHOOK_POLL_INTERVAL_MS,
    observer: deliveryObserver,
    onFailure: (error) => logger.warn({ err: error }, 'webhooks: a delivery pass failed; tried again at the next one'),
  });
  webhooks.start();
  const stopSweeping = sweepExpiredMemberships(db, {
    intervalMs: sweepIntervalForTests(),
    onFailure: (error) =>
      logger.warn({ err: error }, 'memberships: removing expired ones failed; tried again at the next sweep'),
  });

  const waitedMs = settings.DB_TIMEOUT_MS;
  const stopPurge = async () => {
    if (await endsWithin(stopPurgingKeys(), waitedMs)) return;
    logger.warn(
      { job: 'idempotency keys purge', waitedMs },
      'stopping: left the purge of expired idempotency keys waiting on the database after DB_TIMEOUT_MS; the next purge deletes them',
    );
  };
  const stopSweep = async () => {
    if (await endsWithin(stopSweeping(), waitedMs)) return;
    logger.warn(
      { job: 'expiry sweep', waitedMs },
      'stopping: left the sweep of expired memberships waiting on the database after DB_TIMEOUT_MS; the next sweep, of any instance, removes what it did not',
    );
  };
  const stopDelivery = async () => {
    const left = await webhooks.stop();
    if (!left.pass && left.attempts === 0) return;
    logger.warn(
      { job: 'webhook delivery', pass: left.pass, attempts: left.attempts, waitedMs: STOP_WAIT_MS },
      'stopping: left the webhook delivery under way; an attempt it claimed and did not record is made again once its claim lapses (WEBHOOK_LEASE_MS)',
    );
  };
  return async () => {
    await Promise.all([stopPurge(), stopSweep(), stopDelivery()]);
  };
}
