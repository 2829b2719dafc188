/**
 * A whole REST list (behaviour §6), sent as it is read. The list's procedure is called for pages of
 * STREAMED_PAGE_SIZE by cursor, and each page is written once the socket has taken the one before
 * (a Readable: the response pulls the next page only when it drains). So the answer for an
 * organization of 100,000 members holds a page or two in memory, where the list read at once and
 * answered in one piece held it three times over: the rows, the items and their JSON (`npm run
 * bench:scale`, docs/performance.md).
 *
 * The first page is read before anything is sent, so that a refusal (400, 403) is answered as any
 * other. A failure after it ends the answer early: the client sees a body cut short, never a
 * well-formed list with members missing. The bytes are those of `JSON.stringify` on the whole
 * array.
 *
 * A list that fits in its first page is answered in one piece, with its length, as any other
 * answer: a stream costs a chunked framing, a write per chunk and its bookkeeping, which for the
 * member list of 100 was a large share of the request's CPU (`npm run bench:ab`, scenario c).
 *
 * The pages are larger than a caller may ask for (1,000): the REST layer sets the size in the
 * context (listPaging.pageSize), which restList reads. In pages of 1,000 the list of 10,000 took
 * ten statements and more of the service's CPU (`npm run bench:ab`, scenario d); a page of 10,000
 * is a few MB, which is what the service holds of the list of 100,000 at any time.
 */
import { Readable } from 'node:stream';

export const STREAMED_PAGE_SIZE = 10_000;

/** A page of a list as the REST layer reads it: its items, and the cursor of the next (null: the last). */
export interface ListPage {
  items: readonly unknown[];
  next: string | null | undefined;
}

/** Whether a list request asks for the whole list: neither `limit` nor `cursor` in its query. */
export function asksForWholeList(query: unknown): boolean {
  const fields = (query ?? {}) as Record<string, unknown>;
  return ['limit', 'cursor', 'search', 'role', 'sort'].every((name) => fields[name] === undefined);
}

async function* jsonArray(first: ListPage, readPage: (cursor: string) => Promise<ListPage>): AsyncGenerator<string> {
  let page = first;
  let written = 0;
  yield '[';
  for (;;) {
    if (page.items.length > 0) {
      yield (written > 0 ? ',' : '') + page.items.map((item) => JSON.stringify(item)).join(',');
      written += page.items.length;
    }
    if (!page.next) break;
    page = await readPage(page.next);
  }
  yield ']';
}

/** The whole list as JSON text: in one piece when its first page (read here) is its last, else a stream. */
export async function wholeList(
  readPage: (cursor: string | undefined) => Promise<ListPage>,
): Promise<string | Readable> {
  const first = await readPage(undefined);
  if (!first.next) return JSON.stringify(first.items);
  return Readable.from(jsonArray(first, readPage), { objectMode: false });
}
