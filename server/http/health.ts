/**
 * Liveness (`/healthz`: the process answers) and readiness (`/readyz`: the database answers and the
 * instance is not stopping).
 */
import type { FastifyInstance } from 'fastify';
import type { Orm } from '../data/orm.ts';
import type { Stopping } from './stopping.ts';

const READINESS_TIMEOUT_MS = 1500;

/**
 * One round trip to the database; throws the driver's error when it cannot be made. MikroORM 7
 * connects on the first query, and its `isConnected()` answers false until then: readiness asks
 * the database itself, so it holds from the start, before any request has been served.
 */
export async function pingDatabase(orm: Orm): Promise<void> {
  await orm.em.getConnection().execute('select 1');
}

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
  return async (app: FastifyInstance) => {
    app.get('/healthz', async () => ({ status: 'ok' }));
    app.get('/readyz', async (_request, reply) => {
      if (stopping.phase !== 'serving') {
        return reply.status(503).send({ code: 'SERVICE_UNAVAILABLE', message: 'The service is stopping' });
      }
      return (await databaseAnswers(orm))
        ? { status: 'ready' }
        : reply.status(503).send({ code: 'SERVICE_UNAVAILABLE', message: 'The database is not reachable' });
    });
  };
}
