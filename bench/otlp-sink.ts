/**
 * An OTLP/HTTP receiver for `npm run bench:ab`'s traced entries (bench/ab.ts): it reads what the
 * service exports and answers 200 with an empty message, as a collector does, on loopback. What
 * it costs is this process's CPU, counted with the load's, not the service's.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startOtlpSink(): Promise<{ url: string; bytes: () => number; close: () => Promise<void> }> {
  let bytes = 0;
  const server = createServer((request, response) => {
    request.on('data', (chunk: Buffer) => (bytes += chunk.length));
    request.on('end', () => response.writeHead(200, { 'content-type': 'application/x-protobuf' }).end());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    bytes: () => bytes,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
