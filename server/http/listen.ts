/**
 * The service listens twice: for requests (PORT, HOST) and, with METRICS_PORT, for Prometheus
 * (METRICS_PORT, METRICS_HOST). A listener that cannot be bound fails the start with an error that
 * knows which of them it was, so that the operator's line names the settings to change
 * (cli/failures.ts).
 */
import type { Settings } from '../platform/config.ts';

export interface Listener {
  port: 'PORT' | 'METRICS_PORT';
  host: 'HOST' | 'METRICS_HOST';
}

export const REQUESTS_LISTENER: Listener = { port: 'PORT', host: 'HOST' };
export const METRICS_LISTENER: Listener = { port: 'METRICS_PORT', host: 'METRICS_HOST' };

export class ListenError extends Error {
  override name = 'ListenError';
  readonly listener: Listener;
  /** `host:port` as the settings give them. */
  readonly where: string;

  constructor(listener: Listener, where: string, cause: unknown) {
    super(`Cannot listen on ${where} (${listener.port})`, { cause });
    this.listener = listener;
    this.where = where;
  }
}

/** Runs `listen` for `listener`, and names the listener in its failure. */
export async function listenFor<T>(listener: Listener, settings: Settings, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    throw new ListenError(listener, `${settings[listener.host]}:${settings[listener.port]}`, error);
  }
}
