/**
 * Settings from the environment (behaviour §1), parsed once at start-up. A bad value stops the start
 * with a message that names the setting.
 */
import { isIP } from 'node:net';
import { z } from 'zod';
import { DEFAULT_DATABASE_URL, locateDatabase, type DatabaseLocation } from './database/engine.ts';
import { RoleCatalogue, RoleCatalogueError } from './role-catalogue.ts';

const booleanSetting = (fallback: boolean) =>
  z
    .enum(['true', 'false', '1', '0'])
    .optional()
    .transform((value) => (value === undefined ? fallback : value === 'true' || value === '1'));

/**
 * The longest any *_MS setting may be: a day. Each becomes a timer, and Node's timers hold at most
 * 2^31 - 1 ms (24.8 days; past it one fires at once, with a warning that is not a JSON log line);
 * the socket timeout doubles REQUEST_TIMEOUT_MS. No wait this service makes needs longer.
 */
const MAX_WAIT_MS = 86_400_000;

/** A setting in milliseconds, `least` to a day. */
const waitMs = (least: number, fallback: number) =>
  z.coerce.number().int().min(least).max(MAX_WAIT_MS).default(fallback);

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `500ms`, `5s`, `5m`, `2h`, `1d` in milliseconds; undefined for anything else. */
function durationMs(text: string): number | undefined {
  const match = /^(\d{1,6})(ms|s|m|h|d)$/.exec(text.trim());
  return match ? Number(match[1]) * DURATION_UNITS_MS[match[2]!]! : undefined;
}

/** WEBHOOK_RETRY_SCHEDULE's waits in milliseconds: 1 to 20 durations; undefined if it is not that. */
function retryScheduleMs(text: string): number[] | undefined {
  const waits = text.split(',').map(durationMs);
  return waits.length <= 20 && waits.every((wait) => wait !== undefined) ? waits : undefined;
}

/** One resolver of DNS_SERVERS: an IPv4 address, or an IPv6 one in brackets, with an optional port. */
function isResolverAddress(text: string): boolean {
  const match = /^(?:\[([^\]]+)\]|([^:]+))(?::(\d{1,5}))?$/.exec(text) ?? /^([0-9a-fA-F:]+)$/.exec(text);
  if (!match) return false;
  const host = match[1] ?? match[2]!;
  const port = match[3] === undefined ? 53 : Number(match[3]);
  return isIP(host) !== 0 && port >= 1 && port <= 65535;
}

/**
 * What is wrong with PUBLIC_URL, if anything: it must be an absolute http(s) URL without a user or
 * password, a query or a fragment, as the service puts its own paths after it.
 */
function publicUrlProblem(text: string): string | undefined {
  const url = /^\s*https?:\/\//i.test(text) ? URL.parse(text) : null;
  if (!url) return 'must be an absolute http:// or https:// URL (https://orgs.example.com, https://example.com/orgs)';
  if (url.username !== '' || url.password !== '') return 'must not carry a user or password';
  if (/[?#]/.test(url.href)) return 'must have no query (?) or fragment (#): the service puts its paths after it';
  return undefined;
}

/** The names proxy-addr, Fastify's reader of X-Forwarded-For, gives to address ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** Whether `entry` is an IP address, a CIDR range (`10.0.0.0/8`) or one of PROXY_RANGE_NAMES. */
function isProxyRange(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const [address = '', prefix, ...rest] = entry.split('/');
  const family = isIP(address);
  if (family === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * TRUST_PROXY as Fastify's `trustProxy` takes it: the addresses and ranges of the proxies whose
 * forwarding headers are believed. Never `true`, which would believe any client's X-Forwarded-For,
 * and no count of proxies, which Fastify takes to trust none (it cannot tell the nearest peer).
 */
function trustedProxies(value: string | undefined, context: z.RefinementCtx): string[] | undefined {
  const entries = (value ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0) return undefined;
  const wrong = entries.find((entry) => !isProxyRange(entry));
  if (wrong === undefined) return entries;
  context.addIssue({
    code: 'custom',
    message: `"${wrong}" is neither an IP address, a CIDR range (10.0.0.0/8), nor loopback, linklocal or uniquelocal`,
  });
  return z.NEVER;
}

const settingsSchema = z.object({
  NODE_ENV: z.string().default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * The service's base URL as its clients reach it (behaviour §6, §14, §18): SCIM's absolute URLs
   * and the OpenAPI document's servers start with it, never with a request's Host header, and the
   * list Link and the console's own paths with its path (publicPath). Kept in URL's normal form
   * (lower-case scheme and host, no default port) without its trailing slashes; unset, SCIM's URLs
   * come from the request and the other paths are the service's own.
   */
  PUBLIC_URL: z
    .string()
    .optional()
    .transform((value, context) => {
      if (value === undefined) return undefined;
      const problem = publicUrlProblem(value);
      if (problem === undefined) return URL.parse(value)!.href.replace(/\/+$/, '');
      context.addIssue({ code: 'custom', message: problem });
      return z.NEVER;
    }),
  /**
   * The proxies in front of the service whose X-Forwarded-For, X-Forwarded-Proto and
   * X-Forwarded-Host it believes: a client's address (what the rate limit counts by) and, without
   * PUBLIC_URL, the scheme and host of SCIM's URLs. Unset, the connection's own.
   */
  TRUST_PROXY: z.string().optional().transform(trustedProxies),
  DATABASE_URL: z
    .string()
    .min(1)
    .default(DEFAULT_DATABASE_URL)
    // A URL's scheme picks the database engine: the refusal names the schemes there are.
    .superRefine((url, context) => {
      try {
        locateDatabase(url);
      } catch (error) {
        context.addIssue({ code: 'custom', message: (error as Error).message });
      }
    }),
  JWT_SECRET: z.string().optional(),
  /** Fetched with HTTP: any other scheme, or credentials in it, would give every token 503. */
  JWT_JWKS_URL: z
    .url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' })
    .refine((url) => !/^[a-z]+:\/\/[^/]*@/i.test(url), {
      error: 'must not carry a user or password: fetch refuses such URLs',
    })
    .optional(),
  JWT_PUBLIC_KEY: z.string().optional(),
  /** Least time between two fetches of the JWKS (an unknown `kid` triggers a refetch). */
  JWT_JWKS_COOLDOWN_MS: waitMs(0, 30_000),
  JWT_ISSUER: z.string().optional(),
  JWT_AUDIENCE: z.string().optional(),
  REQUIRE_CREATOR_ROLE: booleanSetting(true),
  MIGRATE_ON_START: booleanSetting(true),
  /** Compared with a request's Origin header as it is: an entry a browser never sends would never match. */
  CORS_ORIGINS: z
    .string()
    .optional()
    .transform((value, context) => {
      const origins = (value ?? '')
        .split(',')
        .map((origin) => origin.trim())
        .filter(Boolean);
      const wrong = origins.find((origin) => URL.parse(origin)?.origin !== origin);
      if (wrong === undefined) return origins;
      context.addIssue({
        code: 'custom',
        message: `"${wrong}" is not an origin as a browser sends it: scheme://host[:port], lower case, no default port, no path (not even /)`,
      });
      return z.NEVER;
    }),
  /** Requests per caller per window; 0 turns rate limiting off. */
  RATE_LIMIT_MAX: z.coerce.number().int().min(0).default(600),
  RATE_LIMIT_WINDOW_MS: waitMs(1000, 60_000),
  /** Redis that keeps the rate-limit counters, shared by every instance pointed at it; unset: per instance. */
  REDIS_URL: z.url({ protocol: /^rediss?$/, error: 'must be a redis:// or rediss:// URL' }).optional(),
  /** Prefix of this service's keys in Redis, so that services (or deployments) sharing one Redis keep apart. */
  REDIS_KEY_PREFIX: z.string().min(1).default('org-user-service:'),
  /** Time a client has to send a whole request; a slow sender is cut off (408). */
  REQUEST_TIMEOUT_MS: waitMs(1000, 15_000),
  /** Open connections at most; more are refused until some close. */
  MAX_CONNECTIONS: z.coerce.number().int().min(1).default(10_000),
  /** Connections in the database pool (behaviour §10). */
  DB_POOL_SIZE: z.coerce.number().int().min(1).max(1000).default(10),
  /**
   * The longest a request waits for a database connection or statement, and the time one
   * transaction may take with its retries (behaviour §10); past it, 503 with Retry-After.
   */
  DB_TIMEOUT_MS: waitMs(100, 5000),
  /**
   * Audit event subscriptions (behaviour §9): how often an instance with subscribers looks for new
   * events (about the longest delay of a delivery), and how many events may wait for one
   * subscriber before it is disconnected as too slow (at least one poll's worth, 500).
   */
  EVENTS_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(250),
  EVENTS_SUBSCRIBER_BACKLOG: z.coerce.number().int().min(500).default(1000),
  /** How long an invitation stays open (behaviour §8), in hours; fractions allowed, ten years at most. */
  INVITATION_TTL_HOURS: z.coerce.number().positive().max(87_600).default(168),
  /** On SIGTERM, time from the signal to the exit: the drain, then in-flight requests finishing. */
  SHUTDOWN_TIMEOUT_MS: waitMs(0, 15_000),
  /**
   * On SIGTERM, time requests are still served (while /readyz fails) before the listener closes:
   * long enough for a load balancer to notice and send the traffic elsewhere.
   */
  SHUTDOWN_DRAIN_MS: waitMs(0, 0),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /** The application's permissions, instance roles and grants (behaviour §11), a JSON file read at start. */
  ROLES_FILE: z.string().optional(),
  /** Webhooks (behaviour §13): how long a receiver has to answer an attempt with a 2xx. */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(10_000),
  /** The waits before each retry of a failed attempt, e.g. `5s,5m,30m`; after the last, the delivery has failed. */
  WEBHOOK_RETRY_SCHEDULE: z
    .string()
    .default('5s,5m,30m,2h,5h,10h,10h')
    .refine((text) => retryScheduleMs(text) !== undefined, {
      error: 'must be 1 to 20 durations like 500ms, 5s, 5m, 2h or 1d, comma-separated',
    }),
  /** An endpoint whose every attempt has failed for this long is disabled; fractions allowed. */
  WEBHOOK_DISABLE_AFTER_HOURS: z.coerce.number().positive().max(87_600).default(120),
  /** How long an instance's claim on an attempt holds; a dead instance's claims are taken over after it. */
  WEBHOOK_LEASE_MS: waitMs(1000, 30_000),
  /** How often each instance looks for committed events to hand out and attempts that are due. */
  WEBHOOK_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(60_000).default(200),
  /** Attempts one instance makes at once, over all endpoints (each endpoint gets a few of them at most). */
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1000).default(16),
  /** Allow http:// endpoint URLs (local development); https only otherwise. */
  WEBHOOK_ALLOW_HTTP: booleanSetting(false),
  /** Allow endpoints on loopback, private, link-local and other non-public addresses (local development). */
  WEBHOOK_ALLOW_PRIVATE: booleanSetting(false),
  /** The resolvers domain verification asks (behaviour §17): comma-separated `ip[:port]`; unset: the system's. */
  DNS_SERVERS: z
    .string()
    .optional()
    .transform((value, context) => {
      if (value === undefined) return undefined;
      const servers = value.split(',').map((server) => server.trim());
      if (!servers.every(isResolverAddress)) {
        context.addIssue({ code: 'custom', message: 'must be comma-separated ip[:port] ([ipv6]:port)' });
        return z.NEVER;
      }
      return servers;
    }),
  /** How long a domain's verification waits for each resolver's answer. */
  DNS_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5000),
  /** Serve the console at /console (behaviour §14). */
  CONSOLE: booleanSetting(true),
  /** Where the development secret is kept when JWT_SECRET is unset outside production. */
  DATA_DIR: z.string().min(1).default('./data'),
  /** Port of the Prometheus metrics listener (GET /metrics); unset: no metrics; 0: any free port. */
  METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  /** Address the metrics listener binds to: loopback unless the scraper is elsewhere. */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * Traces (docs/operations.md): the OTLP/HTTP collector's base URL; unset (and the traces' own
   * endpoint below unset too), no tracing and the SDK is not loaded. OpenTelemetry's standard
   * variables, the rest read only when tracing is on.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  /** The traces' own collector URL, used as it is given (`…/v1/traces`); before OTEL_EXPORTER_OTLP_ENDPOINT. */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  /** `true`: no tracing, whatever the endpoints say. */
  OTEL_SDK_DISABLED: booleanSetting(false),
  OTEL_EXPORTER_OTLP_PROTOCOL: z.enum(['http/protobuf', 'http/json']).default('http/protobuf'),
  OTEL_SERVICE_NAME: z.string().min(1).default('org-user-service'),
  /** More attributes of the traces' resource, `key=value,…` percent-encoded; read by the SDK itself (sdk.ts). */
  OTEL_RESOURCE_ATTRIBUTES: z.string().optional(),
  OTEL_TRACES_SAMPLER: z
    .enum([
      'always_on',
      'always_off',
      'traceidratio',
      'parentbased_always_on',
      'parentbased_always_off',
      'parentbased_traceidratio',
    ])
    .default('parentbased_always_on'),
  /** The share of traces the `traceidratio` samplers keep, 0 to 1. */
  OTEL_TRACES_SAMPLER_ARG: z.coerce.number().min(0).max(1).default(1),
  /**
   * How ended spans wait to be sent: at most OTEL_BSP_SCHEDULE_DELAY ms, in batches of at most
   * OTEL_BSP_MAX_EXPORT_BATCH_SIZE, OTEL_BSP_MAX_QUEUE_SIZE at most waiting (the rest dropped), each
   * send given OTEL_BSP_EXPORT_TIMEOUT ms. OpenTelemetry's standard names and defaults, which its
   * 3.x SDK no longer reads itself.
   */
  OTEL_BSP_SCHEDULE_DELAY: z.coerce.number().int().min(1).max(3_600_000).default(5000),
  OTEL_BSP_EXPORT_TIMEOUT: z.coerce.number().int().min(1).max(3_600_000).default(30_000),
  OTEL_BSP_MAX_QUEUE_SIZE: z.coerce.number().int().min(1).max(1_000_000).default(2048),
  OTEL_BSP_MAX_EXPORT_BATCH_SIZE: z.coerce.number().int().min(1).max(1_000_000).default(512),
});

/**
 * The settings, the database DATABASE_URL names, located once (database/engine.ts), the roles
 * and permissions of ROLES_FILE (role-catalogue.ts), and the webhooks' retry schedule.
 */
export type Settings = z.infer<typeof settingsSchema> & {
  database: DatabaseLocation;
  roles: RoleCatalogue;
  /** WEBHOOK_RETRY_SCHEDULE in milliseconds. */
  webhookRetrySchedule: number[];
};

function readRoles(path: string | undefined): RoleCatalogue {
  if (path === undefined) return new RoleCatalogue();
  try {
    return RoleCatalogue.read(path);
  } catch (error) {
    if (!(error instanceof RoleCatalogueError)) throw error;
    throw new SettingsError(`Invalid settings: ROLES_FILE (${path}): ${error.message}`);
  }
}

/** Time a claim covers beyond WEBHOOK_TIMEOUT_MS: recording the attempt's result. */
const WEBHOOK_RECORD_MARGIN_MS = 1000;

export class SettingsError extends Error {
  override name = 'SettingsError';
}

/**
 * The environment without its empty values: a setting set to nothing (`PORT=` in an env file, a
 * blank value in a manifest) or to spaces only is unset, and takes its default, whatever its type.
 */
const withoutEmptyValues = (env: NodeJS.ProcessEnv) =>
  Object.fromEntries(Object.entries(env).filter(([, value]) => value?.trim() !== ''));

export function readSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const result = settingsSchema.safeParse(withoutEmptyValues(env));
  if (!result.success) {
    const problems = result.error.issues.map(({ path, message }) => {
      const name = path.join('.');
      // A message that names its setting already (DATABASE_URL's, engine.ts) is not prefixed twice.
      return message.startsWith(`${name} `) ? message : `${name}: ${message}`;
    });
    throw new SettingsError(`Invalid settings: ${problems.join('; ')}`);
  }
  const settings = {
    ...result.data,
    database: locateDatabase(result.data.DATABASE_URL),
    roles: readRoles(result.data.ROLES_FILE),
    webhookRetrySchedule: retryScheduleMs(result.data.WEBHOOK_RETRY_SCHEDULE)!,
  };
  // A claim must outlast the attempt it covers, or a second attempt starts beside a slow first one.
  if (settings.WEBHOOK_LEASE_MS < settings.WEBHOOK_TIMEOUT_MS + WEBHOOK_RECORD_MARGIN_MS) {
    throw new SettingsError(
      `Invalid settings: WEBHOOK_LEASE_MS must be at least WEBHOOK_TIMEOUT_MS + ${WEBHOOK_RECORD_MARGIN_MS} ms ` +
        `(here ${settings.WEBHOOK_TIMEOUT_MS + WEBHOOK_RECORD_MARGIN_MS} ms), so that a claim outlasts its attempt`,
    );
  }
  // The SDK would send smaller batches than asked for, and say so only in its diagnostics.
  if (settings.OTEL_BSP_MAX_EXPORT_BATCH_SIZE > settings.OTEL_BSP_MAX_QUEUE_SIZE) {
    throw new SettingsError(
      `Invalid settings: OTEL_BSP_MAX_EXPORT_BATCH_SIZE (${settings.OTEL_BSP_MAX_EXPORT_BATCH_SIZE}) must be at most ` +
        `OTEL_BSP_MAX_QUEUE_SIZE (${settings.OTEL_BSP_MAX_QUEUE_SIZE}): a batch is taken from the spans waiting`,
    );
  }
  // The stop's deadline counts from the signal: the drain, then requests under way finishing.
  const neededMs = settings.SHUTDOWN_DRAIN_MS + processingLimitMs(settings);
  if (settings.SHUTDOWN_TIMEOUT_MS <= neededMs) {
    throw new SettingsError(
      `Invalid settings: SHUTDOWN_TIMEOUT_MS must be longer than SHUTDOWN_DRAIN_MS plus the longest a request ` +
        `may run (DB_TIMEOUT_MS + 200 ms), here ${neededMs} ms, so requests under way at the close can finish`,
    );
  }
  return settings;
}

export const isProduction = (settings: Settings) => settings.NODE_ENV === 'production';

/**
 * PUBLIC_URL's path: what a proxy that serves the service under a path strips before passing a
 * request on (`/orgs` of `https://example.com/orgs`), and so what the paths the service hands its
 * clients need before them. Empty when PUBLIC_URL is unset or has no path. Kept percent-encoded,
 * as URL writes it: it never holds `<`, `>`, `"`, a space, `?` or `#`.
 */
export function publicPath(publicUrl: string | undefined): string {
  if (publicUrl === undefined) return '';
  const { pathname } = new URL(publicUrl);
  return pathname === '/' ? '' : pathname;
}

/**
 * The longest the service works on one request before answering 503 (http/processing-limit.ts).
 * A request's waits on the database end DB_TIMEOUT_MS after it started (database/transaction.ts), and
 * its 503 then took some tens of milliseconds more on a loaded 2-core machine (tests/faults.test.ts).
 * The 200 ms over DB_TIMEOUT_MS let those bounds end a request first; the limit answers what they
 * cannot end (a frozen database, a whole-second lock wait on MySQL), so that every request is
 * answered within DB_TIMEOUT_MS + 250 ms. Shorter than the socket timeout, so a request is answered
 * before its connection is closed.
 */
export const processingLimitMs = (settings: Settings) => settings.DB_TIMEOUT_MS + 200;
