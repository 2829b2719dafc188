/**
 * The API reference page at `/docs`: Swagger UI, its assets served from its npm package (no CDN),
 * shown as the service's own page. Swagger UI's standalone layout has a top bar with Fastify's logo
 * and an "Explore" box that loads any URL into the page; the base layout has neither. The bearer
 * token and the organization are each entered once, under "Authorize", and kept in the browser.
 *
 * Why not Scalar's Fastify plugin: its bundle reaches for Scalar's hosted services (a request proxy,
 * fonts, its registry and agent) that would each have to be switched off and watched on every
 * release, while Swagger UI here loads nothing from elsewhere (tests/docs.test.ts checks it).
 */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { OpenAPIObject } from 'trpc-to-openapi';
import { publicPath } from '../platform/config.ts';
import { escapeHtmlAttribute } from './html.ts';
import { API_TITLE } from './openapi.ts';

const ORGANIZATION_HEADER = 'organization_id';
const ORGANIZATION_SCHEME = 'OrganizationId';

type Parameter = { in: string; name: string; description?: string };
type Operation = { parameters?: Parameter[]; security?: Array<Record<string, string[]>> };

const FAVICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#23408e"/>
<circle cx="11" cy="13" r="4" fill="#fff"/><circle cx="21" cy="13" r="4" fill="#fff"/>
<path d="M4 26c0-4 3-7 7-7s7 3 7 7zM14 26c0-4 3-7 7-7s7 3 7 7z" fill="#fff"/>
</svg>`;

/**
 * The page's copy of the document. Swagger UI asks for a header parameter in every operation, each
 * time; as an API key it is asked once in "Authorize", like the token, and sent with every
 * operation that needs it. `/openapi.json` keeps it a header parameter, as the REST layer reads it.
 */
export function referencePageDocument(document: OpenAPIObject): OpenAPIObject {
  const copy = structuredClone(document);
  let description: string | undefined;
  for (const item of Object.values(copy.paths ?? {})) {
    for (const operation of Object.values(item as Record<string, Operation>)) {
      const header = operation.parameters?.find(
        (parameter) => parameter.in === 'header' && parameter.name === ORGANIZATION_HEADER,
      );
      if (!header) continue;
      description ??= header.description;
      operation.parameters = operation.parameters!.filter((parameter) => parameter !== header);
      operation.security = (operation.security ?? [{}]).map((requirement) => ({
        ...requirement,
        [ORGANIZATION_SCHEME]: [],
      }));
    }
  }
  const schemes = ((copy.components ??= {}).securitySchemes ??= {});
  for (const scheme of Object.values(schemes)) {
    if ('scheme' in scheme && scheme.scheme === 'bearer') {
      scheme.description ??= 'The JWT alone, without "Bearer". In development `npm run token -- --sub ID` prints one.';
    }
  }
  schemes[ORGANIZATION_SCHEME] = {
    type: 'apiKey',
    in: 'header',
    name: ORGANIZATION_HEADER,
    description: `${description ?? 'The organization'}: sent as the \`${ORGANIZATION_HEADER}\` header by the member operations.`,
  };
  return copy;
}

/**
 * The plugin's policy without `upgrade-insecure-requests`: the service speaks plain HTTP, and a
 * browser that obeys the directive fetches the page's scripts and styles over HTTPS, where nothing
 * answers, and shows a blank page (everywhere but on loopback, which browsers never upgrade).
 * Behind a proxy that terminates TLS the page and its assets already come over HTTPS, and they are
 * all same-origin: the directive has nothing to upgrade there either.
 */
const withoutHttpsUpgrade = (policy: string): string =>
  policy
    .split(';')
    .map((directive) => directive.trim())
    .filter((directive) => directive !== '' && directive !== 'upgrade-insecure-requests')
    .join('; ');

/**
 * /docs, from `document`, which gives the service's document when first asked for. @fastify/swagger
 * wants a document when it is registered: it gets a stand-in that is never served, since every
 * answer of Swagger UI's is the one its transformSpecification hook gives, the reference page's.
 * `publicUrl` is PUBLIC_URL, if it is set: its path goes before the page's own paths.
 */
export function referencePagePlugin(document: () => OpenAPIObject, publicUrl: string | undefined) {
  let built: OpenAPIObject | undefined;
  const referenceDocument = () => (built ??= referencePageDocument(document()));
  return async (app: FastifyInstance) => {
    await app.register(swagger, {
      mode: 'static',
      specification: { document: { openapi: '3.0.3', info: { title: API_TITLE, version: '' }, paths: {} } },
    });
    await app.register(swaggerUi, {
      routePrefix: '/docs',
      // `/docs` (without its final slash) names its scripts and styles by paths from the root:
      // PUBLIC_URL's path goes before them, as a proxy serving the service under it needs (behaviour
      // §5). Swagger UI writes it into the page's attributes as it is, so it is escaped for them.
      indexPrefix: escapeHtmlAttribute(publicPath(publicUrl)),
      transformSpecification: referenceDocument,
      transformSpecificationClone: false,
      // Swagger UI's inline scripts get their hashes in this page's Content-Security-Policy.
      staticCSP: true,
      transformStaticCSP: withoutHttpsUpgrade,
      theme: {
        title: `${API_TITLE}: API reference`,
        favicon: [{ filename: 'favicon.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: FAVICON }],
      },
      uiConfig: {
        layout: 'BaseLayout',
        persistAuthorization: true,
        displayRequestDuration: true,
      },
    });
  };
}
