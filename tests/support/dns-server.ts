/**
 * A DNS server of the test's own on 127.0.0.1 (node:dgram, messages by the `dns-packet` package), so
 * that domain verification is tested against real DNS without asking anyone else: the service is
 * pointed at it by DNS_SERVERS. It answers TXT questions from `records`, each name's behaviour
 * set by the test: its records, SERVFAIL, or silence (a time-out).
 */
import { createSocket, type Socket } from 'node:dgram';
import { once } from 'node:events';
import dnsPacket from 'dns-packet';

export type NameBehaviour = { txt: string[] } | 'servfail' | 'silent';

export interface TestDnsServer {
  /** `127.0.0.1:<port>`, for DNS_SERVERS. */
  address: string;
  /** What the server does for a name (lower case); a name not set has no records (NXDOMAIN). */
  names: Map<string, NameBehaviour>;
  /** Every name asked for, in order. */
  asked: string[];
  close(): Promise<void>;
}

const SERVFAIL = 2;
const NXDOMAIN = 3;

function answer(
  socket: Socket,
  message: Buffer,
  port: number,
  address: string,
  names: Map<string, NameBehaviour>,
  asked: string[],
) {
  const query = dnsPacket.decode(message);
  const question = query.questions?.[0];
  if (!question) return;
  const name = question.name.toLowerCase();
  asked.push(name);
  const behaviour = names.get(name);
  if (behaviour === 'silent') return;
  const txt = typeof behaviour === 'object' && question.type === 'TXT' ? behaviour.txt : [];
  const rcode = behaviour === 'servfail' ? SERVFAIL : behaviour === undefined ? NXDOMAIN : 0;
  const response = dnsPacket.encode({
    id: query.id,
    type: 'response',
    // QR and RA set, RD echoed; the rcode in the low four bits.
    flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | rcode,
    questions: query.questions,
    answers: txt.map((data) => ({ type: 'TXT' as const, name: question.name, ttl: 60, class: 'IN' as const, data })),
  });
  socket.send(response, port, address);
}

export async function startDnsServer(): Promise<TestDnsServer> {
  const socket = createSocket('udp4');
  const names = new Map<string, NameBehaviour>();
  const asked: string[] = [];
  socket.on('message', (message, remote) => {
    try {
      answer(socket, message, remote.port, remote.address, names, asked);
    } catch {
      // A message that is not DNS gets no answer, as from a real server.
    }
  });
  socket.bind(0, '127.0.0.1');
  await once(socket, 'listening');
  return {
    address: `127.0.0.1:${socket.address().port}`,
    names,
    asked,
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}
