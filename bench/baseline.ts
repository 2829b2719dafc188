/**
 * The hand-written baseline of `npm run bench`: node:http, mysql2 prepared statements and an HS256
 * check with node:crypto, serving only what the scenarios call, with the same queries, locks and
 * checks as the service. It shows what the service's stack (Fastify, tRPC, trpc-to-openapi, zod,
 * jose, MikroORM) costs. Not part of the product.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import mysql, { type Pool, type PoolConnection, type RowDataPacket } from 'mysql2/promise';

const secret = process.env.JWT_SECRET ?? '';
const pool: Pool = mysql.createPool({
  uri: (process.env.DATABASE_URL ?? '').replace(/^mariadb:/, 'mysql:'),
  connectionLimit: 10,
  timezone: 'Z',
  dateStrings: false,
});

class HttpError extends Error {
  status: number;
  constructor(status: number, message: string) {
    super(message);
    this.status = status;
  }
}

function callerOf(request: IncomingMessage): string {
  const token = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1];
  const [header, payload, signature] = token?.split('.') ?? [];
  if (!header || !payload || !signature) throw new HttpError(401, 'Invalid bearer token');
  const expected = createHmac('sha256', secret).update(`${header}.${payload}`).digest();
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw new HttpError(401, 'Invalid bearer token');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
  if (typeof claims.sub !== 'string' || typeof claims.exp !== 'number' || claims.exp * 1000 < Date.now()) {
    throw new HttpError(401, 'Invalid bearer token');
  }
  return claims.sub;
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of request) {
    size += chunk.length;
    if (size > 65536) throw new HttpError(413, 'Too large');
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString() || '{}');
  } catch {
    throw new HttpError(400, 'Malformed JSON');
  }
}

const ROLES = new Set(['owner', 'admin', 'member']);
const iso = (value: Date) => value.toISOString();

async function roleIn(connection: Pool | PoolConnection, organizationId: string, userId: string, lock = false) {
  const [rows] = await connection.execute<RowDataPacket[]>(
    `select role from organization_users where organization_id = ? and user_id = ?${lock ? ' for update' : ''}`,
    [organizationId, userId],
  );
  return rows[0]?.role as string | undefined;
}

async function inTransaction<T>(work: (connection: PoolConnection) => Promise<T>): Promise<T> {
  const connection = await pool.getConnection();
  try {
    await connection.beginTransaction();
    const result = await work(connection);
    await connection.commit();
    return result;
  } catch (error) {
    await connection.rollback();
    throw error;
  } finally {
    connection.release();
  }
}

async function lockAsManager(connection: PoolConnection, organizationId: string, userId: string): Promise<string> {
  await connection.execute('select id from organizations where id = ? for update', [organizationId]);
  const role = await roleIn(connection, organizationId, userId);
  if (role !== 'owner' && role !== 'admin') throw new HttpError(403, 'Forbidden');
  return role;
}

async function handle(request: IncomingMessage): Promise<[number, unknown]> {
  const url = new URL(request.url ?? '/', 'http://localhost');
  const caller = callerOf(request);
  if (url.pathname === '/api/users' && request.method === 'GET') {
    const [rows] = await pool.execute<RowDataPacket[]>(
      'select id, first_name, last_name, email, created_at, updated_at from users where id = ?',
      [caller],
    );
    const user = rows[0];
    if (!user) throw new HttpError(404, 'Not found');
    return [200, { ...user, created_at: iso(user.created_at), updated_at: iso(user.updated_at) }];
  }
  const organizationId = request.headers['organization_id'];
  if (typeof organizationId !== 'string') throw new HttpError(400, 'organization_id');
  if (url.pathname.startsWith('/organization-user/') && request.method === 'GET') {
    if (!(await roleIn(pool, organizationId, caller))) throw new HttpError(403, 'Forbidden');
    const [rows] = await pool.execute<RowDataPacket[]>(
      `select u.id as user_id, u.first_name, u.last_name, u.email, m.role, m.created_at, m.updated_at
       from organization_users m join users u on u.id = m.user_id where m.organization_id = ? and m.user_id = ?`,
      [organizationId, decodeURIComponent(url.pathname.slice('/organization-user/'.length))],
    );
    const row = rows[0];
    if (!row) throw new HttpError(404, 'Not found');
    return [
      200,
      { organization_id: organizationId, ...row, created_at: iso(row.created_at), updated_at: iso(row.updated_at) },
    ];
  }
  if (url.pathname !== '/organization-user') throw new HttpError(404, 'Not found');
  if (request.method === 'GET') {
    if (!(await roleIn(pool, organizationId, caller))) throw new HttpError(403, 'Forbidden');
    const [rows] = await pool.execute<RowDataPacket[]>(
      `select u.id as user_id, u.first_name, u.last_name, m.role, u.email, m.created_at
       from organization_users m join users u on u.id = m.user_id where m.organization_id = ?
       order by m.created_at, m.user_id`,
      [organizationId],
    );
    return [200, rows.map((row) => ({ ...row, created_at: iso(row.created_at).slice(0, 19).replace('T', ' ') }))];
  }
  const body = await readJson(request);
  if (request.method === 'PUT') {
    if (typeof body.user_id !== 'string' || !ROLES.has(body.role as string)) throw new HttpError(400, 'Invalid');
    await inTransaction(async (connection) => {
      const actorRole = await lockAsManager(connection, organizationId, caller);
      const targetRole = await roleIn(connection, organizationId, body.user_id as string);
      if (!targetRole) throw new HttpError(404, 'Not a member');
      if (actorRole !== 'owner' && (targetRole === 'owner' || body.role === 'owner'))
        throw new HttpError(403, 'Forbidden');
      await connection.execute(
        'update organization_users set role = ?, updated_at = ? where organization_id = ? and user_id = ?',
        [body.role as string, new Date(), organizationId, body.user_id as string],
      );
    });
    return [200, { message: 'Role updated' }];
  }
  if (request.method === 'POST') {
    if (typeof body.email !== 'string' || !ROLES.has(body.role as string)) throw new HttpError(400, 'Invalid');
    const userId = await inTransaction(async (connection) => {
      await lockAsManager(connection, organizationId, caller);
      const [users] = await connection.execute<RowDataPacket[]>('select id from users where email = ?', [
        (body.email as string).toLowerCase(),
      ]);
      const user = users[0];
      if (!user) throw new HttpError(404, 'No such user');
      const now = new Date();
      await connection.execute(
        'insert into organization_users (organization_id, user_id, role, created_at, updated_at) values (?, ?, ?, ?, ?)',
        [organizationId, user.id, body.role as string, now, now],
      );
      return user.id as string;
    });
    return [201, { organization_id: organizationId, user_id: userId, role: body.role }];
  }
  if (request.method === 'DELETE') {
    if (typeof body.user_id !== 'string') throw new HttpError(400, 'Invalid');
    await inTransaction(async (connection) => {
      const actorRole = await lockAsManager(connection, organizationId, caller);
      const targetRole = await roleIn(connection, organizationId, body.user_id as string);
      if (!targetRole) throw new HttpError(404, 'Not a member');
      if (actorRole !== 'owner' && targetRole === 'owner') throw new HttpError(403, 'Forbidden');
      await connection.execute('delete from organization_users where organization_id = ? and user_id = ?', [
        organizationId,
        body.user_id as string,
      ]);
    });
    return [200, { message: 'Member removed' }];
  }
  throw new HttpError(404, 'Not found');
}

const server = createServer((request: IncomingMessage, response: ServerResponse) => {
  handle(request).then(
    ([status, body]) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify(body));
    },
    (error: unknown) => {
      const status = error instanceof HttpError ? error.status : 500;
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify({ code: String(status), message: (error as Error).message }));
    },
  );
});
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(JSON.stringify({ msg: 'listening', address: [server.address()] }));
});
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
