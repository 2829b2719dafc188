/**
 * Starts tracing when a collector is named, by OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
 * OTEL_EXPORTER_OTLP_ENDPOINT, and OTEL_SDK_DISABLED is not true (docs/operations.md, "Traces"):
 * the SDK (sdk.ts) is imported only then, and spans.ts gets its tracer. Otherwise nothing is loaded
 * and no span is made.
 */
import type { Logger } from 'pino';
import type { TracingSettings } from './sdk.ts';
import { useTracer } from './spans.ts';

/**
 * Where spans are sent, as OpenTelemetry's variables say: the traces' own endpoint as it is given,
 * else `v1/traces` under the endpoint of every signal; undefined when tracing is off.
 */
export function tracesUrl(settings: TracingSettings): string | undefined {
  if (settings.OTEL_SDK_DISABLED) return undefined;
  const endpoint = settings.OTEL_EXPORTER_OTLP_ENDPOINT;
  return settings.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (endpoint && `${endpoint.replace(/\/?$/, '/')}v1/traces`);
}

/**
 * Starts tracing if the settings ask for it, the SDK's warnings going to `logger`; the function
 * returned sends what is left and stops it.
 */
export async function startTracing(settings: TracingSettings, logger: Logger): Promise<() => Promise<void>> {
  const url = tracesUrl(settings);
  if (url === undefined) return () => Promise.resolve();
  const { startSdk } = await import('./sdk.ts');
  const { tracer, stop } = await startSdk(settings, url, logger);
  useTracer(tracer);
  return async () => {
    useTracer(undefined);
    await stop();
  };
}
