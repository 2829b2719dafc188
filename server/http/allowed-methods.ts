/**
 * The methods each known path serves, for the 405 answer's `Allow` header (behaviour §5). Fastify
 * answers a method a path does not serve as it answers an unknown path; this keeps every registered
 * path in a second router (find-my-way, the one Fastify itself routes with, so paths with
 * parameters match exactly as they do there) to tell the two apart.
 */
import FindMyWay from 'find-my-way';
import type { FastifyInstance } from 'fastify';

/** Records the routes `app` registers from now on; returns `path → "GET, HEAD, POST"`, or undefined for an unknown path. */
export function allowedMethodsRecorder(app: FastifyInstance): (path: string) => string | undefined {
  const methodsByPath = new Map<string, Set<string>>();
  app.addHook('onRoute', (route) => {
    // A catch-all (the CORS preflight's `OPTIONS *`) would make every path a known one.
    if (route.url === '*' || route.url === '/*') return;
    const methods = methodsByPath.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    if (methods.has('GET') && route.exposeHeadRoute !== false) methods.add('HEAD');
    methodsByPath.set(route.url, methods);
  });

  let router: FindMyWay.Instance<FindMyWay.HTTPVersion.V1> | undefined;
  const build = () => {
    const built = FindMyWay({ maxParamLength: Number.MAX_SAFE_INTEGER });
    for (const [url, methods] of methodsByPath) built.on('GET', url, () => {}, [...methods].sort().join(', '));
    return built;
  };
  // Built on first use: every route is registered by the time a request arrives.
  return (path) => {
    router ??= build();
    return router.find('GET', path)?.store as string | undefined;
  };
}
