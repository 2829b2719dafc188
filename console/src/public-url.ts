/**
 * Where the service is, as the page was told (behaviour §14): with PUBLIC_URL set, the service
 * writes it into the page in a meta tag (server/http/console.ts, PUBLIC_URL_META). A proxy may serve
 * the service under a path (`https://example.com/orgs`), which it strips before the service: the
 * console's own paths and the calls it makes then go under that path. Without the tag, as before:
 * the page's origin, with nothing before the service's paths.
 */
const declared = document.querySelector<HTMLMetaElement>('meta[name="org-service-public-url"]')?.content || undefined;
const declaredPath = declared === undefined ? '/' : new URL(declared).pathname;

/** PUBLIC_URL's path, `/orgs`, or nothing. */
export const PUBLIC_PATH = declaredPath === '/' ? '' : declaredPath;

/**
 * The service the console calls: this page's origin, under PUBLIC_PATH. Not PUBLIC_URL itself, whose
 * origin may be another name of the same proxy than the one the browser used: the page's policy
 * lets it call its own origin only (`connect-src 'self'`).
 */
export const SERVICE_URL = `${location.origin}${PUBLIC_PATH}`;

/**
 * The service's base URL for others to use (the SCIM base URL an administrator gives their
 * identity provider): PUBLIC_URL when it is set, as SCIM's own URLs (behaviour §18); else the
 * origin the browser opened the console at.
 */
export const PUBLIC_BASE_URL = declared ?? location.origin;
