/**
 * The two list endpoints in both forms (behaviour §6): REST returns the whole array unless
 * `?limit=N` asks for a page, announcing the next one in a `Link` header; tRPC `*.page`
 * procedures return `{items, nextCursor}` for infinite queries. Their outputs are checked in place,
 * without zod's copy of every item (checked-output.ts).
 */
import { z } from 'zod';
import type { Page, PageRequest } from '../database/pages.ts';
import { checkedInPlace } from './checked-output.ts';
import type { Context } from './context.ts';

const MAX_PAGE_SIZE = 1000;
export const DEFAULT_PAGE_SIZE = 100;

const PAGE_SIZE_PROBLEM = `Must be one whole number from 1 to ${MAX_PAGE_SIZE}`;

/**
 * A page's size, 1 to 1000. One problem for whatever is wrong with it: a query's `limit` given twice,
 * written other than in decimal digits or too long stays text (http/rest.ts), which zod would name
 * otherwise.
 */
export const pageSize = () => z.number({ error: PAGE_SIZE_PROBLEM }).int({ abort: true }).min(1).max(MAX_PAGE_SIZE);

/** The REST `Link` header of a paged list, as the OpenAPI document states it. */
export const nextLinkHeader = (description: string) => z.object({ link: z.string().optional().meta({ description }) });

/** What a list needs of its request's context: where it was asked for, and what it answers besides. */
export type ListContext = Pick<Context, 'requestPath' | 'responseHeaders' | 'listPaging'>;

/**
 * Announces the next page of the list the caller asked for: `Link: <path?query>; rel="next"`
 * (behaviour §6). The path is the caller's own, PUBLIC_URL's path before it when it has one
 * (`</orgs/organization-user?…>`), and never a host: a relative reference, which RFC 8288 resolves
 * against the URL the client asked for, so it keeps the scheme and host the client used, and a
 * PUBLIC_URL without a path leaves the header as clients that put it after their own origin read it.
 */
export function linkToNextPage(ctx: ListContext, query: URLSearchParams): void {
  ctx.responseHeaders.link = `<${ctx.requestPath}?${query.toString()}>; rel="next"`;
}

/** A cursor of a list in a chosen order, which names its last row's sort key (sorted-pages.ts). */
const sortedCursor = () => z.string().max(4096);

/**
 * The query of a REST list that also takes a search, a filter or an order (behaviour §15), each
 * given in `extra`: a function, for the reason pageSize is.
 */
export const restSortedListQuery = <Extra extends z.ZodRawShape>(extra: Extra) =>
  z.object({ limit: pageSize().optional(), cursor: sortedCursor().optional(), ...extra }).optional();

/** The tRPC page input of such a list. */
export const sortedPageInput = <Extra extends z.ZodRawShape>(extra: Extra) =>
  z.object({ limit: pageSize().default(DEFAULT_PAGE_SIZE), cursor: sortedCursor().nullish(), ...extra });

/**
 * A REST list asked for with a search, filter or order: always a page (at most `limit`, default
 * 100), its `Link` repeating them (`selection`) with the next cursor.
 */
export async function restSortedList<Item>(
  ctx: ListContext,
  query: { limit?: number; cursor?: string },
  selection: Record<string, string | undefined>,
  list: (page: { limit: number; cursor?: string }) => Promise<Page<Item>>,
): Promise<Item[]> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const page = await list({ limit, cursor: query.cursor });
  ctx.listPaging.nextCursor = page.nextCursor;
  if (page.nextCursor !== null) {
    const given = Object.entries(selection).filter((entry): entry is [string, string] => entry[1] !== undefined);
    linkToNextPage(ctx, new URLSearchParams([...given, ['limit', String(limit)], ['cursor', page.nextCursor]]));
  }
  return page.items;
}

/** The REST list query: a function, for the reason pageSize is. */
export const restListQuery = () =>
  z.object({ limit: pageSize().optional(), cursor: z.string().max(512).optional() }).optional();

export const pageInput = z.object({
  limit: pageSize().default(DEFAULT_PAGE_SIZE),
  cursor: z.string().max(512).nullish(),
});

/** A list's output, as REST answers it: the items (or a page of them, see restList). */
export const listOutput = <Item extends z.ZodObject>(item: Item) => checkedInPlace(z.array(item));

const pageOf = <Item extends z.ZodObject>(item: Item) =>
  z.object({ items: z.array(item), nextCursor: z.string().nullable() });

/** A page of a list, as the tRPC `*.page` procedures answer it. */
export const pageOutput = <Item extends z.ZodObject>(item: Item) => checkedInPlace(pageOf(item));

/** A page of a list whose first page also says how many items the whole list has. */
export const countedPageOutput = <Item extends z.ZodObject>(item: Item) =>
  checkedInPlace(pageOf(item).extend({ total: z.number().int().optional() }));

/** A REST list request: whole list without parameters, else a page (a lone cursor gets the default size). */
function restPageRequest(query: z.infer<ReturnType<typeof restListQuery>> = {}): PageRequest {
  if (query.limit === undefined && query.cursor === undefined) return {};
  return { limit: query.limit ?? DEFAULT_PAGE_SIZE, cursor: query.cursor };
}

/** The page's items, with `Link: <path?limit=N&cursor=…>; rel="next"` when more follow. */
function withNextLink<Item>(ctx: ListContext, request: PageRequest, page: Page<Item>): Item[] {
  ctx.listPaging.nextCursor = page.nextCursor;
  if (page.nextCursor !== null && request.limit !== undefined) {
    linkToNextPage(ctx, new URLSearchParams({ limit: String(request.limit), cursor: page.nextCursor }));
  }
  return page.items;
}

/**
 * A REST list's answer from the query that reads it (`list`): the whole list without parameters,
 * else the page asked for, announcing the next one in a `Link` header.
 */
export async function restList<Item>(
  ctx: ListContext,
  query: z.infer<ReturnType<typeof restListQuery>>,
  list: (page: PageRequest) => Promise<Page<Item>>,
): Promise<Item[]> {
  const { pageSize: streamedPageSize } = ctx.listPaging;
  const request = streamedPageSize ? { limit: streamedPageSize, cursor: query?.cursor } : restPageRequest(query);
  return withNextLink(ctx, request, await list(request));
}
