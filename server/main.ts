/**
 * `npm start`: reads the settings and starts the service. On SIGTERM or SIGINT it stops taking
 * connections, lets in-flight requests finish (at most SHUTDOWN_TIMEOUT_MS), closes the database
 * pool and exits 0.
 */
import { startService } from './app.ts';
import { readSettings, SettingsError } from './config.ts';

async function main(): Promise<void> {
  const settings = readSettings();
  const service = await startService(settings);
  service.logger.info({ address: service.app.addresses() }, 'listening');

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    service.logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const deadline = setTimeout(() => {
      service.logger.error({ timeoutMs: settings.SHUTDOWN_TIMEOUT_MS }, 'shutdown timed out: exiting');
      process.exit(1);
    }, settings.SHUTDOWN_TIMEOUT_MS);
    deadline.unref();
    await service.close();
    service.logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  // A settings problem is the operator's to fix: say what, without a stack.
  console.error(error instanceof SettingsError ? error.message : error);
  process.exit(1);
});
