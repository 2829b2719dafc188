/** `GET /openapi.json` from the procedures' meta, and the reference page at `/docs`. */
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { generateOpenApiDocument, type OpenAPIObject } from 'trpc-to-openapi';
import type { AppRouter } from '../routers/index.ts';

export function buildOpenApiDocument(router: AppRouter): OpenAPIObject {
  return generateOpenApiDocument(router, {
    title: 'Organization and user management service',
    description: 'Users, organizations and memberships with roles, behind JWT bearer tokens.',
    version: '1.0.0',
    baseUrl: '/',
  });
}

export function openApiPlugin(router: AppRouter) {
  const document = buildOpenApiDocument(router);
  return async (app: FastifyInstance) => {
    app.get('/openapi.json', { logLevel: 'warn' }, async () => document);
    // Swagger UI's assets come from its npm package: the page works with no internet access.
    await app.register(swagger, { mode: 'static', specification: { document: document as never } });
    await app.register(swaggerUi, { routePrefix: '/docs' });
  };
}
