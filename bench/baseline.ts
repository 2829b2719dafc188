/**
 * The hand-written baseline of `npm run bench`: node:http, mysql2 and an HS256 check on
 * node:crypto, serving the endpoints the scenarios call with the contract's rules (permissions,
 * last owner, validation, audit events, retries on a multi-primary cluster, the permission check
 * with the application permissions of ROLES_FILE, organization roles and teams). It is the bar the
 * service is measured against, so it is written to be as fast as a careful hand-written server can
 * be while staying correct. Not part of the product.
 *
 * This file starts it; its parts are in bench/baseline/, one a concern: how a change runs and how
 * every request keeps its budget in transactions.ts, which request goes where in routing.ts. Of
 * the service it runs the admission gate (server/platform/database/gate.ts), a module that loads
 * nothing else; what it keeps of its own, and why, is said where it is (permissions.ts).
 */
import { createServer } from 'node:http';
import { serve } from './baseline/routing.ts';
import { pool } from './baseline/transactions.ts';

const server = createServer(serve);
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  console.log(JSON.stringify({ msg: 'listening', address: [server.address()] }));
});
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
