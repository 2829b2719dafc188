/**
 * HTTP/1.1 over a bare socket, for what fetch will not send: malformed escapes, oversized headers,
 * control characters, unknown methods, a request that stops half-way.
 */
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  /** The body parsed as JSON (every answer of the service is JSON). */
  body: any;
}

/** The payload of a chunked body: each chunk is its size in hexadecimal, CRLF, the bytes, CRLF. */
function unchunk(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let rest = body;
  for (;;) {
    const lineEnd = rest.indexOf('\r\n');
    const size = parseInt(rest.subarray(0, lineEnd).toString('latin1'), 16);
    if (!size) return Buffer.concat(parts);
    parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
    rest = rest.subarray(lineEnd + 2 + size + 2);
  }
}

function parseResponse(raw: Buffer): RawResponse {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd < 0) throw new Error(`no HTTP answer: ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`);
  const [statusLine = '', ...headerLines] = raw.subarray(0, headEnd).toString('latin1').split('\r\n');
  const headers = Object.fromEntries(
    headerLines.map((line) => {
      const colon = line.indexOf(':');
      return [line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim()];
    }),
  );
  const bodyBytes = raw.subarray(headEnd + 4);
  const payload = headers['transfer-encoding'] === 'chunked' ? unchunk(bodyBytes) : bodyBytes;
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: payload.length ? JSON.parse(payload.toString('utf8')) : undefined,
  };
}

/**
 * Sends `head` (request line and headers, without the blank line that ends them) then `body`, and
 * reads the answer until the server closes the connection. With `stallHeaders` the headers are
 * never finished.
 */
export async function rawRequest(
  baseUrl: string,
  head: string,
  options: { body?: string; stallHeaders?: boolean } = {},
): Promise<RawResponse> {
  const { hostname, port } = new URL(baseUrl);
  const received = await new Promise<Buffer>((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname, () => {
      socket.write(options.stallHeaders ? `${head}\r\n` : `${head}\r\nConnection: close\r\n\r\n${options.body ?? ''}`);
    });
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => resolve(Buffer.concat(chunks)));
  });
  return parseResponse(received);
}
