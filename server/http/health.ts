/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the database answers and the
 * instance is not stopping).
 */
import type { FastifyInstance } from 'fastify';
import { errorBodyOf, unavailable } from '../platform/errors.ts';
import { pingDatabase, type Orm } from '../platform/database/orm.ts';
import type { Stopping } from './stopping.ts';

const READINESS_TIMEOUT_MS = 1500;

async function databaseAnswers(orm: Orm): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), READINESS_TIMEOUT_MS);
  });
  try {
    return await Promise.race([pingDatabase(orm).then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
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
