/**
 * The spans the service makes (docs/operations.md, "Traces"), through the OpenTelemetry API. The
 * SDK that records and exports them is loaded only when a collector is named (sdk.ts, started by
 * `startTracing`); until then `tracer` is undefined and every function here only runs the work it
 * is given, so a service without tracing pays one test per span it would have made.
 *
 * What a span carries is chosen here and nowhere else: routes as templates, organization ids,
 * statement kinds and tables, status codes; never a header, a body, a value of a statement, a
 * token, a key, a secret or an e-mail address.
 */
import {
  context,
  createContextKey,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type Tracer,
} from '@opentelemetry/api';

let tracer: Tracer | undefined;

/** Set once by startTracing (tracing.ts), before the service serves. */
export function useTracer(started: Tracer | undefined): void {
  tracer = started;
}

export const tracingOn = (): boolean => tracer !== undefined;

/** The request's span, kept in the context so that a procedure can tag it (tagOrganization). */
const REQUEST_SPAN = createContextKey('org-user-service request span');

type Headers = Record<string, string | string[] | undefined>;

/**
 * What a request's span is: its trace (continued from `traceparent`) and, when the sampler chose to
 * record it, the context its work runs in. An unsampled request has none: its span records
 * nothing, no span would be made under it (`recording`), and entering a context for it would cost
 * every unsampled request for nothing. Its trace id still goes on its log line.
 */
export interface RequestTrace {
  span: Span;
  method: string;
  context: Context | undefined;
  traceId: string;
}

/** A server span for a request, continuing the trace of its W3C `traceparent` when it has one. */
export function startRequestSpan(method: string, headers: Headers): RequestTrace | undefined {
  if (!tracer) return undefined;
  const parent = propagation.extract(ROOT_CONTEXT, headers);
  // Its attribute is set once sampled, not given to the sampler: the ones configured here (sdk.ts)
  // decide by the trace alone, and the SDK would check and copy it for every request, sampled or not.
  const span = tracer.startSpan(method, { kind: SpanKind.SERVER }, parent);
  if (!span.isRecording()) return { span, method, context: undefined, traceId: span.spanContext().traceId };
  span.setAttribute('http.request.method', method);
  const traced = trace.setSpan(parent, span).setValue(REQUEST_SPAN, span);
  return { span, method, context: traced, traceId: span.spanContext().traceId };
}

/** Ends a request's span: named after its route's template (`POST /organizations/:id/members`). */
export function endRequestSpan({ span, method }: RequestTrace, route: string | undefined, status: number): void {
  if (!span.isRecording()) return;
  if (route !== undefined) {
    span.updateName(`${method} ${route}`);
    span.setAttribute('http.route', route);
  }
  span.setAttribute('http.response.status_code', status);
  if (status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  span.end();
}

/** Runs `work` with `traced` as the active context: what it starts becomes a child of its span. */
export const withTrace = <T>(traced: RequestTrace, work: () => T): T =>
  traced.context ? context.with(traced.context, work) : work();

/**
 * Whether the active span is being recorded. A span under one that is not would not be either,
 * whatever the sampler (a parent-based one follows the parent; a ratio decides by the trace id,
 * the same for the whole trace): it is not made at all, which is most of what an unsampled request
 * would cost.
 */
const recording = () => trace.getSpan(context.active())?.isRecording() === true;

/** Marks `span` as failed by `error`. */
function failed(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR });
  span.setAttribute('error.type', (error as Error).name ?? 'Error');
}

/** `work` in a span of its own, a child of the active one, and active while it runs; the span records a failure and ends. */
async function inSpan<T>(name: string, attributes: Attributes, work: () => Promise<T>) {
  if (!tracer) return work();
  return tracer.startActiveSpan(name, { kind: SpanKind.INTERNAL, attributes }, async (span) => {
    try {
      return await work();
    } catch (error) {
      failed(span, error);
      throw error;
    } finally {
      span.end();
    }
  });
}

/** A tRPC procedure's span (`procedure members.add`), a child of its request's. */
export function inProcedureSpan<T extends { ok: boolean }>(path: string, type: string, work: () => Promise<T>) {
  if (!tracer || !recording()) return work();
  return inSpan(`procedure ${path}`, { 'rpc.system': 'trpc', 'rpc.method': path, 'trpc.type': type }, async () => {
    const result = await work();
    // tRPC hands a failure back as a result, not as a throw.
    if (!result.ok) trace.getActiveSpan()?.setStatus({ code: SpanStatusCode.ERROR });
    return result;
  });
}

/** The organization a procedure acts in, on its span and its request's. */
export function tagOrganization(organizationId: string): void {
  if (!tracer) return;
  const active = context.active();
  trace.getSpan(active)?.setAttribute('organization.id', organizationId);
  (active.getValue(REQUEST_SPAN) as Span | undefined)?.setAttribute('organization.id', organizationId);
}

/** A database statement's span, only within a traced piece of work (a request, a webhook attempt). */
export function inStatementSpan<T>(summarize: () => StatementSummary, work: () => Promise<T>): Promise<T> {
  if (!tracer || !recording()) return work();
  const { name, attributes } = summarize();
  // A leaf: nothing it runs makes a span, so its span is not made the active one (entering a
  // context copies the request's, for every statement).
  const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes });
  return work().then(
    (result) => {
      span.end();
      return result;
    },
    (error: unknown) => {
      failed(span, error);
      span.end();
      throw error;
    },
  );
}

export interface StatementSummary {
  name: string;
  attributes: Attributes;
}

/**
 * A webhook attempt's span, the root of a trace of its own (attempts run on the dispatcher's timer,
 * not in a request), with `traceparent` added to `headers` so that the receiver can continue it.
 */
export async function inWebhookSpan<T extends { statusCode: number | null; succeeded: boolean }>(
  url: string,
  headers: Record<string, string>,
  work: (headers: Record<string, string>) => Promise<T>,
): Promise<T> {
  if (!tracer) return work(headers);
  // The host and port only: a URL's path or query may hold a token of the receiver's.
  const parsed = URL.parse(url);
  const attributes: Attributes = { 'http.request.method': 'POST' };
  if (parsed) {
    attributes['server.address'] = parsed.hostname;
    attributes['server.port'] = Number(parsed.port) || (parsed.protocol === 'https:' ? 443 : 80);
  }
  return tracer.startActiveSpan('webhook attempt', { kind: SpanKind.CLIENT, attributes, root: true }, async (span) => {
    const sent = { ...headers };
    propagation.inject(context.active(), sent);
    try {
      const result = await work(sent);
      if (result.statusCode !== null) span.setAttribute('http.response.status_code', result.statusCode);
      if (!result.succeeded) span.setStatus({ code: SpanStatusCode.ERROR });
      return result;
    } finally {
      span.end();
    }
  });
}
