import { useEffect, useRef, useState } from 'react';
import { Button } from './Button.tsx';
import { keepFocus } from './keepFocus.ts';
import type { CursorPages } from './useCursorPages.ts';

type Direction = 'next' | 'previous';

/**
 * The Previous and Next buttons of a list read a page at a time (`pages`, from `useCursorPages`),
 * named by `label`, with the number of the page shown, announced as it changes, and how many
 * pages there are when the list's `total` is known. `nextCursor` is the shown page's (null on the
 * last); while the page moved to loads (`loading`, the shown one staying meanwhile) the button
 * pressed says it is busy. `onMove` is told of each move, for what belongs to the page left.
 */
export function Pager({
  label,
  pages,
  nextCursor,
  loading,
  total,
  pageSize,
  previous = 'Previous page',
  next = 'Next page',
  onMove,
}: {
  label: string;
  pages: CursorPages;
  nextCursor: string | null | undefined;
  loading: boolean;
  /** How many items the whole list has, with the `pageSize` it is read in: "Page 2 of 30". */
  total?: number | undefined;
  pageSize?: number;
  previous?: string;
  next?: string;
  onMove?: () => void;
}) {
  // The last move: a new object at each, for the effect that follows it.
  const [move, setMove] = useState<{ direction: Direction }>();
  const previousButton = useRef<HTMLButtonElement>(null);
  const nextButton = useRef<HTMLButtonElement>(null);

  // A button disabled by its own loading, or for good on the first or last page, hands the focus
  // to its neighbour rather than to nobody.
  useEffect(() => {
    if (move === undefined || loading) return;
    const [pressed, other] =
      move.direction === 'next'
        ? [nextButton.current, previousButton.current]
        : [previousButton.current, nextButton.current];
    keepFocus(pressed?.disabled ? other : pressed);
  }, [move, loading]);

  const go = (direction: Direction) => {
    if (direction === 'next') {
      if (!nextCursor) return;
      pages.next(nextCursor);
    } else pages.previous();
    setMove({ direction });
    onMove?.();
  };
  // A total read apart from the pages may lag behind them: never fewer pages than the shown ones.
  const count =
    total === undefined || pageSize === undefined
      ? undefined
      : Math.max(Math.ceil(total / pageSize), pages.number + (nextCursor ? 1 : 0));
  return (
    <nav className="osc-pager" aria-label={label}>
      <span className="osc-muted" aria-live="polite">
        Page {pages.number}
        {count !== undefined && ` of ${count}`}
      </span>
      <Button
        ref={previousButton}
        disabled={pages.number === 1}
        busy={loading && move?.direction === 'previous'}
        onClick={() => go('previous')}
      >
        {previous}
      </Button>
      <Button
        ref={nextButton}
        disabled={!nextCursor}
        busy={loading && move?.direction === 'next'}
        onClick={() => go('next')}
      >
        {next}
      </Button>
    </nav>
  );
}
