/**
 * `npm run bench:outage`: how fast the service notices a database outage and recovers from it.
 * Starts a MariaDB instance of its own (needs root and /usr/sbin/mariadbd, as tests/outage.test.ts),
 * stops it under a running service, and prints the figures docs/performance.md quotes.
 */
import { registerUser } from '../tests/support/fixtures.ts';
import { OwnMariadb } from '../tests/support/mariadb-instance.ts';
import { startTestServer } from '../tests/support/server.ts';

const database = new OwnMariadb();
await database.start();
const server = await startTestServer(database.url);
try {
  const user = await registerUser(server);
  const timed = async (path: string) => {
    const started = performance.now();
    const response = await fetch(`${server.baseUrl}${path}`, { headers: { authorization: `Bearer ${user.token}` } });
    return { status: response.status, ms: Math.round((performance.now() - started) * 10) / 10 };
  };
  await database.stop();
  const readyWhileDown = await timed('/readyz');
  const requestWhileDown = await timed('/users');
  await database.start();
  const back = performance.now();
  let ready = 0;
  while (ready !== 200) ready = (await fetch(`${server.baseUrl}/readyz`)).status;
  const figures = {
    readyzWhileDown: readyWhileDown,
    getUsersWhileDown: requestWhileDown,
    readyAgainAfterDatabaseAnswersMs: Math.round((performance.now() - back) * 10) / 10,
  };
  console.log(JSON.stringify(figures, null, 2));
} finally {
  await server.service.close();
  await database.destroy();
}
