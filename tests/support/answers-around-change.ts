/**
 * Requests kept under way while a change is sent, and the answers in the order their heads arrived:
 * what a change must be answered after (behaviour §11, §16).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { RequestOptions, TestServer } from './server.ts';

export interface Answer {
  status: number;
  body: any;
}

type Request = [method: string, path: string, options: RequestOptions];

/**
 * `inFlight` loops each send `request` until `change` has been answered, then one more; `change` is
 * sent once they have run a moment. The answers before the change's, its own, and those after.
 */
export async function answersAroundChange(
  server: TestServer,
  { inFlight, request, change }: { inFlight: number; request: Request; change: Request },
): Promise<{ before: Answer[]; change: Answer; after: Answer[] }> {
  const order: Array<Answer & { isChange: boolean }> = [];
  /** Noted as the answer's head arrives: the order of `order` is the order of the answers. */
  const answer = async ([method, path, options]: Request, isChange: boolean) => {
    const response = await server.request(method, path, options);
    const entry = { status: response.status, body: undefined as unknown, isChange };
    order.push(entry);
    const text = await response.text();
    entry.body = text === '' ? undefined : JSON.parse(text);
  };
  let changed = false;
  const loop = async (): Promise<void> => {
    while (!changed) await answer(request, false);
    // One more, sent after the change was answered.
    await answer(request, false);
  };
  const loops = Array.from({ length: inFlight }, loop);
  await sleep(100);
  await answer(change, true);
  changed = true;
  await Promise.all(loops);
  const at = order.findIndex((entry) => entry.isChange);
  const strip = ({ status, body }: Answer) => ({ status, body });
  return { before: order.slice(0, at).map(strip), change: strip(order[at]!), after: order.slice(at + 1).map(strip) };
}
