/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the database answers and the
 * instance is not stopping).
 */
import type { FastifyInstance } from 'fastify';
import { errorBodyOf, unavailable } from '../platform/errors.ts';
import { pingDatabase, type Orm } from '../platform/database/orm.ts';
import { endsWithin } from '../platform/ends-within.ts';
import type { Stopping } from './stopping.ts';

const READINESS_TIMEOUT_MS = 1500;

async function databaseAnswers(orm: Orm): Promise<boolean> {
  try {
    return await endsWithin(pingDatabase(orm), READINESS_TIMEOUT_MS);
  } catch {
    return false;
  }
}

export function healthPlugin(orm: Orm, stopping: Stopping) {
  // eslint-disable-next-line @typescript-eslint/require-await -- a Fastify plugin: its promise tells Fastify it is done
  return async (app: FastifyInstance) => {
    app.get('/healthz', () => ({ status: 'ok' }));
    app.get('/readyz', async (_request, reply) => {
      if (stopping.phase !== 'serving') {
        return reply.status(503).send(errorBodyOf(unavailable('The service is stopping')));
      }
      return (await databaseAnswers(orm))
        ? { status: 'ready' }
        : reply.status(503).send(errorBodyOf(unavailable('The database is not reachable')));
    });
  };
}
