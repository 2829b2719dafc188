/**
 * Starts tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set (docs/operations.md, "Traces"): the SDK
 * (sdk.ts) is imported only then, and spans.ts gets its tracer. Without the endpoint nothing is
 * loaded and no span is made.
 */
import type { Logger } from 'pino';
import type { TracingSettings } from './sdk.ts';
import { useTracer } from './spans.ts';

/**
 * Starts tracing if the settings ask for it, the SDK's warnings going to `logger`; the function
 * returned sends what is left and stops it.
 */
export async function startTracing(settings: TracingSettings, logger: Logger): Promise<() => Promise<void>> {
  const endpoint = settings.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (endpoint === undefined) return () => Promise.resolve();
  const { startSdk } = await import('./sdk.ts');
  const { tracer, stop } = await startSdk(settings, endpoint, logger);
  useTracer(tracer);
  return async () => {
    useTracer(undefined);
    await stop();
  };
}
