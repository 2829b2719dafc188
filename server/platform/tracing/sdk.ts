/**
 * The OpenTelemetry SDK, set up from the OTEL_* settings: loaded by tracing.ts only when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set, so that a service without tracing never loads it.
 *
 * Spans go out in batches (the SDK's BatchSpanProcessor: every OTEL_BSP_SCHEDULE_DELAY ms, 5 s by
 * default, or OTEL_BSP_MAX_EXPORT_BATCH_SIZE spans, 512) over OTLP/HTTP, as protobuf or JSON
 * (OTEL_EXPORTER_OTLP_PROTOCOL), to `<endpoint>/v1/traces`. The exporter reads the other standard
 * variables of its own (OTEL_EXPORTER_OTLP_HEADERS, _TIMEOUT, _COMPRESSION). The sampler is built
 * here from OTEL_TRACES_SAMPLER and its argument, and the batches from the OTEL_BSP_* settings: the
 * SDK's 3.x tracer provider and batch processor no longer read them, and @opentelemetry/sdk-node,
 * which does, brings every exporter and instrumentation along.
 */
import { context, propagation, trace, type Tracer } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { detectResources, resourceAttributesEnvDetector, resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  BatchSpanProcessor,
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type Sampler,
} from '@opentelemetry/sdk-trace';
import packageJson from '../../../package.json' with { type: 'json' };
import type { Settings } from '../config.ts';

/** The settings tracing reads (docs/configuration.md). */
export type TracingSettings = Pick<
  Settings,
  | 'OTEL_EXPORTER_OTLP_ENDPOINT'
  | 'OTEL_EXPORTER_OTLP_PROTOCOL'
  | 'OTEL_SERVICE_NAME'
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

async function exporterFor(settings: TracingSettings, endpoint: string) {
  const url = `${endpoint.replace(/\/?$/, '/')}v1/traces`;
  const { OTLPTraceExporter } =
    settings.OTEL_EXPORTER_OTLP_PROTOCOL === 'http/json'
      ? await import('@opentelemetry/exporter-trace-otlp-http')
      : await import('@opentelemetry/exporter-trace-otlp-proto');
  return new OTLPTraceExporter({ url });
}

export async function startSdk(
  settings: TracingSettings,
  endpoint: string,
): Promise<{ tracer: Tracer; stop: () => Promise<void> }> {
  const provider = new TracerProvider({
    // OTEL_RESOURCE_ATTRIBUTES as OpenTelemetry reads it (a value it cannot parse is dropped whole),
    // under the service's name and version, which it may not change.
    resource: detectResources({ detectors: [resourceAttributesEnvDetector] }).merge(
      resourceFromAttributes({ 'service.name': settings.OTEL_SERVICE_NAME, 'service.version': packageJson.version }),
    ),
    sampler: samplerOf(settings.OTEL_TRACES_SAMPLER, settings.OTEL_TRACES_SAMPLER_ARG),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter: await exporterFor(settings, endpoint),
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
