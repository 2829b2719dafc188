/**
 * A lean HTTP/1.1 client for bench/open-loop.ts: keep-alive connections over `node:net`, each
 * sending one request at a time, written from bytes prepared once, and reading an answer no
 * further than its status line, its framing and its end. node:http's client costs several times
 * the CPU per request (a ClientRequest, its headers and an IncomingMessage stream each time), and
 * on the 2 cores the load shares with the service and MariaDB, that CPU, and the garbage
 * collections it brings, are stalls of the generator counted as the service's latency.
 */
import { connect, type Socket } from 'node:net';

const HEAD_END = Buffer.from('\r\n\r\n');
/** The last chunk of a chunked body: in a JSON answer's bytes a raw CRLF is only ever framing. */
const LAST_CHUNK = Buffer.from('\r\n0\r\n\r\n');

/** The bytes of one request, with its framing and a keep-alive connection. */
export function requestBytes(method: string, path: string, host: string, headers: Record<string, string>, body = '') {
  const lines = [`${method} ${path} HTTP/1.1`, `host: ${host}`, 'connection: keep-alive'];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  if (body || method !== 'GET') lines.push(`content-length: ${Buffer.byteLength(body)}`);
  return Buffer.from(`${lines.join('\r\n')}\r\n\r\n${body}`);
}

/** Where the answer held in `bytes` ends, or -1 while it is not whole. */
function answerEnd(bytes: Buffer): number {
  const headEnd = bytes.indexOf(HEAD_END);
  if (headEnd < 0) return -1;
  const head = bytes.toString('latin1', 0, headEnd).toLowerCase();
  const length = /\r\ncontent-length:\s*(\d+)/.exec(head);
  if (length) {
    const end = headEnd + HEAD_END.length + Number(length[1]);
    return bytes.length >= end ? end : -1;
  }
  if (!/\r\ntransfer-encoding:\s*chunked/.test(head)) throw new Error(`an answer without framing: ${head}`);
  const last = bytes.indexOf(LAST_CHUNK, headEnd);
  return last < 0 ? -1 : last + LAST_CHUNK.length;
}

/** One keep-alive connection; `send` resolves with the answer's status once all of it has arrived. */
export class RawConnection {
  readonly #socket: Socket;
  readonly #opened: Promise<void>;
  #received: Buffer[] = [];
  #closed = false;
  #answered?: (status: number) => void;
  #failed?: (error: Error) => void;

  constructor(port: number, host: string) {
    this.#socket = connect({ port, host, noDelay: true });
    this.#opened = new Promise((resolve, reject) => {
      this.#socket.once('connect', resolve);
      this.#socket.once('error', reject);
    });
    this.#socket.on('data', (chunk) => this.#read(chunk));
    this.#socket.on('error', (error) => this.#failed?.(error));
    this.#socket.on('close', () => {
      this.#closed = true;
      this.#failed?.(new Error('the connection closed'));
    });
  }

  opened(): Promise<void> {
    return this.#opened;
  }

  /** Closed, by either side: the server closes a connection idle for its keep-alive time-out. */
  get closed(): boolean {
    return this.#closed;
  }

  send(request: Buffer): Promise<number> {
    if (this.#closed) return Promise.reject(new Error('the connection is closed'));
    return new Promise((resolve, reject) => {
      this.#answered = resolve;
      this.#failed = reject;
      this.#socket.write(request);
    });
  }

  close(): void {
    this.#failed = undefined;
    this.#socket.destroy();
  }

  #read(chunk: Buffer): void {
    this.#received.push(chunk);
    const bytes = this.#received.length === 1 ? chunk : Buffer.concat(this.#received);
    let end: number;
    try {
      end = answerEnd(bytes);
      if (end > 0 && end !== bytes.length) throw new Error('bytes after the answer to the one request sent');
    } catch (error) {
      this.#failed?.(error as Error);
      this.close();
      return;
    }
    if (end < 0) {
      this.#received = [bytes];
      return;
    }
    this.#received = [];
    const answered = this.#answered!;
    this.#answered = this.#failed = undefined;
    answered(Number(bytes.toString('latin1', 9, 12)));
  }
}
