/** `npm start`: reads the settings, starts the service, and stops it cleanly on SIGTERM/SIGINT. */
import { readSettings, SettingsError } from './config.ts';
import { startService } from './app.ts';

async function main(): Promise<void> {
  const settings = readSettings();
  const service = await startService(settings);
  service.logger.info({ address: service.app.addresses() }, 'listening');
  const stop = async (signal: string) => {
    service.logger.info({ signal }, 'shutting down');
    await service.close();
    process.exit(0);
  };
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('SIGINT', () => void stop('SIGINT'));
}

main().catch((error: unknown) => {
  // A settings problem is the operator's to fix: say what, without a stack.
  console.error(error instanceof SettingsError ? error.message : error);
  process.exit(1);
});
