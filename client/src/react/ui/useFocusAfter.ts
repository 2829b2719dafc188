import { useEffect, useRef, type RefObject } from 'react';
import { keepFocus } from './keepFocus.ts';

/** What a form or a button shows of its call: `useMutation`'s answer. */
export interface CallState {
  status: 'idle' | 'pending' | 'success' | 'error';
  isPending: boolean;
  error: unknown;
}

/**
 * A ref for the button that started a call, which gets the focus back once the call ends in one
 * of `ends` if nothing holds it then (the focus was on something the answer took away).
 */
export function useFocusAfter<Element extends HTMLElement = HTMLButtonElement>(
  status: CallState['status'],
  ends: ReadonlyArray<CallState['status']>,
  target: (element: Element) => HTMLElement | null = (element) => element,
): RefObject<Element | null> {
  const ref = useRef<Element>(null);
  useEffect(() => {
    if (ends.includes(status) && ref.current) keepFocus(target(ref.current));
  }, [status]);
  return ref;
}
