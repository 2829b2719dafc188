/**
 * Started by server/main.ts (`npm start`): reads the settings, starts the service and logs one line
 * that says where it listens, on which database, with which migrations, and where the API
 * reference (and the metrics) are. A start that fails on its setup ends with one line that says
 * what to fix (cli/failures.ts), and prints nothing else.
 *
 * On SIGTERM or SIGINT it stops as behaviour §10 says: `/readyz` fails at once and every answer
 * carries `Connection: close`; requests are served for SHUTDOWN_DRAIN_MS, then the listener closes,
 * the requests under way finish, the database pool closes and the process exits 0. Past
 * SHUTDOWN_TIMEOUT_MS from the signal it exits 1. A signal during the start lets the start end
 * first. A second signal changes nothing: Ctrl-C under `npm start` delivers SIGINT twice, once
 * from the terminal and once forwarded by npm.
 *
 * `npm start` runs `exec node server/main.ts`: npm runs a script through `sh -c` and forwards the
 * signal to that shell only, and Debian's dash does not replace itself with the command. Without
 * `exec`, SIGTERM ended the shell and npm (143) and left this process running, orphaned.
 */
import type { AddressInfo } from 'node:net';
import { startService, type Service } from './app.ts';
import { exitWithFailure } from './cli/failures.ts';
import { readSettings, type Settings } from './platform/config.ts';
import { describeDatabase } from './platform/database/engine.ts';

function describeMigrations(service: Service, settings: Settings): string {
  if (!settings.MIGRATE_ON_START) return 'migrations not run at start (MIGRATE_ON_START=false)';
  const applied = service.migrationsApplied;
  return applied.length ? `migrations applied: ${applied.join(', ')}` : 'migrations: none pending';
}

function logStart(service: Service, settings: Settings): void {
  const { address, family, port } = service.app.server.address() as AddressInfo;
  const url = `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
  const database = describeDatabase(settings.database);
  const metrics = service.metrics ? `, metrics at ${service.metrics.url}` : '';
  service.logger.info(
    {
      address: service.app.addresses(),
      url,
      docs: `${url}/docs`,
      database,
      migrationsApplied: service.migrationsApplied,
      metrics: service.metrics?.url,
    },
    `listening on ${url} (API reference at ${url}/docs${metrics}), database ${database}, ${describeMigrations(service, settings)}`,
  );
}

/** Stops the service on the first SIGTERM or SIGINT. */
function stopOnSignals(started: Promise<{ service: Service; settings: Settings }>): void {
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    const { service, settings } = await started;
    service.logger.info(
      { signal, drainMs: settings.SHUTDOWN_DRAIN_MS },
      'stopping: /readyz answers 503, requests are served until the drain ends',
    );
    const deadline = setTimeout(() => {
      service.logger.error({ timeoutMs: settings.SHUTDOWN_TIMEOUT_MS }, 'stop timed out: exiting');
      process.exit(1);
    }, settings.SHUTDOWN_TIMEOUT_MS);
    deadline.unref();
    try {
      await service.close(settings.SHUTDOWN_DRAIN_MS);
    } catch (error) {
      service.logger.error({ err: error }, 'stop failed: exiting');
      process.exit(1);
    }
    service.logger.info('stopped');
    // Exit once the last lines are written, or have failed to be (a reader of stdout that has gone):
    // pino's exit hook would otherwise write them synchronously, and print the broken pipe's error.
    service.logger.flush(() => process.exit(0));
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

async function start() {
  let settings: Settings | undefined;
  try {
    settings = readSettings();
    const service = await startService(settings);
    logStart(service, settings);
    return { service, settings };
  } catch (error) {
    exitWithFailure(error, settings);
  }
}

stopOnSignals(start());
