/**
 * The console at `/console` (behaviour §14): the web application `npm run build` writes into
 * dist/console (console/build.ts), served as static files under a Content-Security-Policy that lets
 * the page run its own scripts and styles and talk to this origin only.
 *
 * Written here rather than with @fastify/static: the console is a handful of files with hashed
 * names, read once at start and held in memory with the gzip and brotli copies the build made, so
 * every answer is one write and the start fails at once, with one line, when they are missing.
 * @fastify/static serves a directory tree from disk (streams, ranges, directory listings, `send`),
 * none of which the console uses, and would only find a missing build on the first request.
 *
 * `/console` and every path under it that names no file answer the page (its own router reads the
 * path); `/console/assets/…` answer the files, cached for a year since their names change with
 * their content. The page is revalidated on every load (its ETag), so a new build is picked up.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { publicPath, SettingsError } from '../platform/config.ts';
import { escapeHtmlAttribute } from './html.ts';

export const CONSOLE_PATH = '/console';

/**
 * The page's scripts and styles come from this origin only, inline ones included (none are
 * needed); it calls this origin only; nothing may frame it, and forms post nowhere.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json; charset=utf-8',
};

interface StaticFile {
  type: string;
  etag: string;
  identity: Buffer;
  gzip?: Buffer;
  br?: Buffer;
}

/**
 * Where the build writes the console: beside the bundle (dist/server → dist/console) when the
 * service runs from it, in the project's dist/console when it runs from its sources (the tests).
 */
function consoleDirectory(): string | undefined {
  const here = import.meta.dirname;
  return [join(here, '..', 'console'), join(here, '..', '..', 'dist', 'console')].find((dir) =>
    existsSync(join(dir, 'index.html')),
  );
}

function filesUnder(dir: string, root = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name), root) : [relative(root, join(dir, entry.name))],
  );
}

/** Every file of the build by its URL path under /console, with its compressed copies. */
function loadFiles(dir: string): Map<string, StaticFile> {
  const names = new Set(filesUnder(dir));
  const files = new Map<string, StaticFile>();
  for (const name of names) {
    const type = CONTENT_TYPES[extname(name)];
    if (!type) continue; // .gz and .br copies, read with their file below
    const identity = readFileSync(join(dir, name));
    const copy = (suffix: string) => (names.has(name + suffix) ? readFileSync(join(dir, name + suffix)) : undefined);
    files.set(`/${name.split(sep).join('/')}`, {
      type,
      etag: etagOf(identity),
      identity,
      gzip: copy('.gz'),
      br: copy('.br'),
    });
  }
  return files;
}

const etagOf = (identity: Buffer) => `"${createHash('sha256').update(identity).digest('base64url').slice(0, 22)}"`;

/** The name of the meta tag that hands the page PUBLIC_URL (console/src/public-url.ts reads it). */
export const PUBLIC_URL_META = 'org-service-public-url';

/**
 * The page as PUBLIC_URL has it served (behaviour §14): the paths of its files after PUBLIC_URL's
 * path, where the browser finds them through the proxy, and PUBLIC_URL itself in a meta tag, from
 * which the console makes the paths it calls and shows the SCIM base URL. Written into the page,
 * rather than asked for by the console, since the page itself must name its files by their public
 * paths; once, at start, with its compressed copies. Unset, the page as built.
 */
function pageFor(built: StaticFile, publicUrl: string | undefined): StaticFile {
  if (publicUrl === undefined) return built;
  const prefix = escapeHtmlAttribute(publicPath(publicUrl));
  const meta = `<meta name="${PUBLIC_URL_META}" content="${escapeHtmlAttribute(publicUrl)}" />`;
  const html = built.identity
    .toString('utf8')
    .replaceAll(`="${CONSOLE_PATH}/`, `="${prefix}${CONSOLE_PATH}/`)
    .replace('  </head>', `    ${meta}\n  </head>`);
  const identity = Buffer.from(html);
  return {
    type: built.type,
    etag: etagOf(identity),
    identity,
    gzip: gzipSync(identity, { level: 9 }),
    br: brotliCompressSync(identity, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
  };
}

/** The codings a copy may have, smallest first: the order the negotiation prefers among equal weights. */
const CODINGS = ['br', 'gzip', 'identity'] as const;

/**
 * The copy the client accepts, by Accept-Encoding's weights (`br;q=0` refuses brotli), smallest
 * first among equals; the file itself when the header refuses every coding there is.
 */
function send(request: FastifyRequest, reply: FastifyReply, file: StaticFile, cacheControl: string) {
  reply.header('content-type', file.type).header('cache-control', cacheControl).header('etag', file.etag);
  reply.header('vary', 'accept-encoding');
  if (request.headers['if-none-match'] === file.etag) return reply.code(304).send();
  const available = CODINGS.filter((coding) => coding === 'identity' || file[coding] !== undefined);
  const coding = negotiate(request.headers['accept-encoding'] ?? 'identity', available);
  if (coding === 'br' || coding === 'gzip') return reply.header('content-encoding', coding).send(file[coding]);
  return reply.send(file.identity);
}

/** `publicUrl`: PUBLIC_URL, the service's base URL as its clients reach it, if it is set. */
export function consolePlugin(publicUrl: string | undefined) {
  const dir = consoleDirectory();
  if (!dir) {
    throw new SettingsError(
      'CONSOLE: the console is not built (no dist/console/index.html): run `npm run build`, or set CONSOLE=false',
    );
  }
  const files = loadFiles(dir);
  const page = pageFor(files.get('/index.html')!, publicUrl);
  files.set('/index.html', page);
  // eslint-disable-next-line @typescript-eslint/require-await -- a Fastify plugin: its promise tells Fastify it is done
  return async (app: FastifyInstance) => {
    const answer = async (request: FastifyRequest<{ Params: { '*'?: string } }>, reply: FastifyReply) => {
      const asset = files.get(`/${request.params['*'] ?? ''}`);
      if (asset && asset !== page) return send(request, reply, asset, 'public, max-age=31536000, immutable');
      // A file that does not exist is a 404; any other path is one of the page's own.
      if (request.params['*']?.startsWith('assets/')) return reply.callNotFound();
      reply.header('content-security-policy', CONSOLE_CSP);
      return send(request, reply, page, 'no-cache');
    };
    app.get(CONSOLE_PATH, answer);
    app.get(`${CONSOLE_PATH}/*`, answer);
  };
}
