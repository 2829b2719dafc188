import { useState } from 'react';

/** Where a list read a page at a time by cursor stands, and the moves a `Pager` makes. */
export interface CursorPages {
  /** The cursor of the page shown: null for the first. */
  cursor: string | null;
  /** The page shown, from 1. */
  number: number;
  next: (cursor: string) => void;
  previous: () => void;
}

/**
 * The cursors of the pages after the first that led to the page shown, the last one its own:
 * Previous goes back without the service having to page backwards. A list read afresh (another
 * search or filter) starts again at the first page by remounting what holds this (a `key`).
 */
export function useCursorPages(): CursorPages {
  const [cursors, setCursors] = useState<readonly string[]>([]);
  return {
    cursor: cursors.at(-1) ?? null,
    number: cursors.length + 1,
    next: (cursor) => setCursors([...cursors, cursor]),
    previous: () => setCursors(cursors.slice(0, -1)),
  };
}
