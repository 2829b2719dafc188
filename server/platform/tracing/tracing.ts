/**
 * Starts tracing when a collector is named, by OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
 * OTEL_EXPORTER_OTLP_ENDPOINT, and OTEL_SDK_DISABLED is not true (docs/operations.md, "Traces"):
 * the SDK (sdk.ts) is imported only then, and spans.ts gets its tracer. Otherwise nothing is loaded
 * and no span is made.
 */
import type { Logger } from 'pino';
import { endsWithin } from '../ends-within.ts';
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
 * How long a stop waits for the spans still batched to reach the collector. The SDK's own bound is
 * OTEL_BSP_EXPORT_TIMEOUT (30 s by default), past SHUTDOWN_TIMEOUT_MS: a collector that takes the
 * connection and never answers would make the stop exit 1.
 */
export const TRACES_STOP_WAIT_MS = 2_000;

/**
 * Starts tracing if the settings ask for it, the SDK's warnings going to `logger`; the function
 * returned sends what is left, waiting TRACES_STOP_WAIT_MS at most, and stops it.
 */
export async function startTracing(settings: TracingSettings, logger: Logger): Promise<() => Promise<void>> {
  const url = tracesUrl(settings);
  if (url === undefined) return () => Promise.resolve();
  const { startSdk } = await import('./sdk.ts');
  const { tracer, stop } = await startSdk(settings, url, logger);
  useTracer(tracer);
  return async () => {
    useTracer(undefined);
    if (await endsWithin(stop(), TRACES_STOP_WAIT_MS)) return;
    logger.warn(
      { job: 'tracing', waitedMs: TRACES_STOP_WAIT_MS },
      'stopping: left the spans not yet sent, the trace collector not having answered',
    );
  };
}
