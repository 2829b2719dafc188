/**
 * The OpenTelemetry SDK, set up from the OTEL_* settings: loaded by tracing.ts only when a collector
 * is named, so that a service without tracing never loads it.
 *
 * Spans go out in batches (the SDK's BatchSpanProcessor: every OTEL_BSP_SCHEDULE_DELAY ms, 5 s by
 * default, or OTEL_BSP_MAX_EXPORT_BATCH_SIZE spans, 512) over OTLP/HTTP, as protobuf or JSON
 * (OTEL_EXPORTER_OTLP_PROTOCOL), to the URL tracing.ts finds. The exporter reads the other standard
 * variables of its own (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION). The sampler is built
 * here from OTEL_TRACES_SAMPLER and its argument, and the batches from the OTEL_BSP_* settings: the
 * SDK's 3.x tracer provider and batch processor no longer read them, and @opentelemetry/sdk-node,
 * which does, brings every exporter and instrumentation along.
 */
import {
  context,
  diag,
  DiagLogLevel,
  propagation,
  trace,
  type Attributes,
  type DiagLogger,
  type Tracer,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceAttributesEnvDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import type { Logger } from 'pino';
import packageJson from '../../../package.json' with { type: 'json' };
import type { Settings } from '../config.ts';

/** The settings tracing reads (docs/configuration.md). */
export type TracingSettings = Pick<
  Settings,
  | 'OTEL_SDK_DISABLED'
  | 'OTEL_EXPORTER_OTLP_ENDPOINT'
  | 'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT'
  | 'OTEL_EXPORTER_OTLP_PROTOCOL'
  | 'OTEL_SERVICE_NAME'
  | 'OTEL_RESOURCE_ATTRIBUTES'
  | 'OTEL_TRACES_SAMPLER'
  | 'OTEL_TRACES_SAMPLER_ARG'
  | 'OTEL_BSP_SCHEDULE_DELAY'
  | 'OTEL_BSP_EXPORT_TIMEOUT'
  | 'OTEL_BSP_MAX_QUEUE_SIZE'
  | 'OTEL_BSP_MAX_EXPORT_BATCH_SIZE'
>;

function samplerOf(name: TracingSettings['OTEL_TRACES_SAMPLER'], ratio: number): Sampler {
  const root = name.endsWith('always_on')
    ? new AlwaysOnSampler()
    : name.endsWith('always_off')
      ? new AlwaysOffSampler()
      : new TraceIdRatioBasedSampler(ratio);
  return name.startsWith('parentbased_') ? new ParentBasedSampler({ root }) : root;
}

async function exporterFor(settings: TracingSettings, url: string) {
  const { OTLPTraceExporter } =
    settings.OTEL_EXPORTER_OTLP_PROTOCOL === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter({ url });
}

/**
 * What OTEL_RESOURCE_ATTRIBUTES adds to the resource, read by the SDK's own detector (from the
 * environment, where the settings read it too). A value that does not parse is dropped whole, as
 * OpenTelemetry specifies; the detector drops it without a word, this says so.
 */
function resourceAttributes(text: string | undefined, logger: Logger): Attributes {
  const attributes = resourceAttributesEnvDetector.detect().attributes ?? {};
  const given = text?.split(',').some((entry) => entry.trim() !== '') ?? false;
  if (given && Object.keys(attributes).length === 0) {
    logger.warn(
      'tracing: OTEL_RESOURCE_ATTRIBUTES does not parse (key=value pairs, commas and = percent-encoded): none of it is used',
    );
  }
  return attributes;
}

/** The least time between two of the SDK's warnings in the log: a collector that is down fails every batch. */
const WARNING_INTERVAL_MS = 10_000;

/**
 * A diagnostic's words: the SDK's error handler hands a failure over as the error's JSON, stack and
 * all, whose message is what tells (`connect ECONNREFUSED 127.0.0.1:4318`).
 */
function readable(message: string): string {
  if (!message.startsWith('{')) return message;
  try {
    const error = JSON.parse(message) as { message?: unknown };
    return typeof error.message === 'string' ? error.message : message;
  } catch {
    return message;
  }
}

/**
 * The SDK's warnings and errors (a batch the collector refused or never got, spans dropped from a
 * full queue) as the service's warnings, one every WARNING_INTERVAL_MS at most, with how many were
 * left out since the last; without this they go nowhere.
 */
function diagnosticsTo(logger: Logger): DiagLogger {
  let lastAt = Number.NEGATIVE_INFINITY;
  let leftOut = 0;
  const warn = (message: string, ...details: unknown[]) => {
    const now = Date.now();
    if (now - lastAt < WARNING_INTERVAL_MS) {
      leftOut++;
      return;
    }
    lastAt = now;
    const described = details.map((detail) => (detail instanceof Error ? detail.message : String(detail)));
    logger.warn(described.length > 0 ? { details: described, leftOut } : { leftOut }, `tracing: ${readable(message)}`);
    leftOut = 0;
  };
  const ignore = () => undefined;
  return { error: warn, warn, info: ignore, debug: ignore, verbose: ignore };
}

export async function startSdk(
  settings: TracingSettings,
  url: string,
  logger: Logger,
): Promise<{ tracer: Tracer; stop: () => Promise<void> }> {
  diag.setLogger(diagnosticsTo(logger), { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true });
  const provider = new TracerProvider({
    // The service's name and version are its own: OTEL_RESOURCE_ATTRIBUTES may not change them.
    resource: resourceFromAttributes({
      ...resourceAttributes(settings.OTEL_RESOURCE_ATTRIBUTES, logger),
      'service.name': settings.OTEL_SERVICE_NAME,
      'service.version': packageJson.version,
    }),
    sampler: samplerOf(settings.OTEL_TRACES_SAMPLER, settings.OTEL_TRACES_SAMPLER_ARG),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: await exporterFor(settings, url),
        scheduledDelayMillis: settings.OTEL_BSP_SCHEDULE_DELAY,
        exportTimeoutMillis: settings.OTEL_BSP_EXPORT_TIMEOUT,
        maxQueueSize: settings.OTEL_BSP_MAX_QUEUE_SIZE,
        maxExportBatchSize: settings.OTEL_BSP_MAX_EXPORT_BATCH_SIZE,
      }),
    ],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(provider);
  return { tracer: provider.getTracer('org-user-service'), stop: () => provider.shutdown() };
}
