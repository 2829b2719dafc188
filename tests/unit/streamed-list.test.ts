/** The whole REST list sent page by page (server/http/streamed-list.ts, behaviour §6). */
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import type { Readable } from 'node:stream';
import { asksForWholeList, wholeList, type ListPage } from '../../server/http/streamed-list.ts';

/** The answer's text, whether it came in one piece or as a stream. */
const bodyOf = async (answer: string | Readable) => (typeof answer === 'string' ? answer : text(answer));

/** A reader of `pages` in order, by cursor `"1"`, `"2"`…, that fails at the page `failAt` if given. */
function pagesReader(pages: unknown[][], failAt?: number) {
  const asked: Array<string | undefined> = [];
  const readPage = (cursor: string | undefined): Promise<ListPage> => {
    asked.push(cursor);
    const index = cursor === undefined ? 0 : Number(cursor);
    if (index === failAt) return Promise.reject(new Error('the database went away'));
    return Promise.resolve({ items: pages[index]!, next: index + 1 < pages.length ? String(index + 1) : null });
  };
  return { readPage, asked };
}

describe('the whole list as a stream', () => {
  const member = (id: number) => ({ user_id: `u${id}`, role: 'member', note: 'quote " and \u2028 and é' });

  it('sends the bytes JSON.stringify makes of the whole array, empty pages included', async () => {
    const pages = [[member(1), member(2)], [], [member(3)], [member(4), member(5)], []];
    const { readPage, asked } = pagesReader(pages);
    const streamed = await bodyOf(await wholeList(readPage));
    expect(streamed).toBe(JSON.stringify(pages.flat()));
    expect(asked).toEqual([undefined, '1', '2', '3', '4']);
  });

  it('sends [] for an empty list', async () => {
    expect(await wholeList(pagesReader([[]]).readPage)).toBe('[]');
  });

  it('answers a list of one page in one piece, the same bytes, read once', async () => {
    const { readPage, asked } = pagesReader([[member(1), member(2)]]);
    expect(await wholeList(readPage)).toBe(JSON.stringify([member(1), member(2)]));
    expect(asked).toEqual([undefined]);
  });

  it('reads the first page before the stream exists, so that a refusal is an ordinary answer', async () => {
    await expect(wholeList(pagesReader([[member(1)]], 0).readPage)).rejects.toThrow('the database went away');
  });

  it('ends in an error, never a well-formed list, when a later page fails', async () => {
    const { readPage } = pagesReader([[member(1)], [member(2)], [member(3)]], 2);
    const stream = (await wholeList(readPage)) as Readable;
    const received: string[] = [];
    stream.on('data', (chunk: Buffer) => received.push(chunk.toString()));
    await expect(new Promise((resolve, reject) => stream.on('end', resolve).on('error', reject))).rejects.toThrow(
      'the database went away',
    );
    expect(() => JSON.parse(received.join(''))).toThrow();
  });

  it('reads the next page only when the one before has been taken', async () => {
    // Each page is larger than the stream's buffer (16 KiB): unread, it holds the next one back.
    const page = (index: number) => [{ ...member(index), note: 'x'.repeat(20_000) }];
    const pages = Array.from({ length: 5 }, (_, index) => page(index));
    const { readPage, asked } = pagesReader(pages);
    const stream = (await wholeList(readPage)) as Readable;
    for (let tick = 0; tick < 20; tick++) await new Promise((resolve) => setImmediate(resolve));
    expect(asked.length).toBeLessThanOrEqual(2);
    expect(await bodyOf(stream)).toBe(JSON.stringify(pages.flat()));
    expect(asked).toHaveLength(pages.length);
  });

  it('is asked for by a request with neither limit nor cursor', () => {
    expect(asksForWholeList({})).toBe(true);
    expect(asksForWholeList(undefined)).toBe(true);
    expect(asksForWholeList({ limit: '10' })).toBe(false);
    expect(asksForWholeList({ cursor: 'abc' })).toBe(false);
  });
});
