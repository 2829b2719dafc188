import { useEffect, useRef, type RefObject } from 'react';
import { keepFocus } from './keepFocus.ts';

/** What a form or a button shows of its call: `useMutation`'s answer. */
export interface CallState {
  status: 'idle' | 'pending' | 'success' | 'error';
  isPending: boolean;
  error: unknown;
}

/**
 * A ref for the button that started a call, or for an element that holds it (a ConfirmButton has
 * no ref of its own), which gets the focus back once the call ends in one of `ends` if nothing
 * holds it then (the focus was on something the answer took away).
 */
export function useFocusAfter<Element extends HTMLElement = HTMLButtonElement>(
  status: CallState['status'],
  ends: ReadonlyArray<CallState['status']>,
): RefObject<Element | null> {
  const ref = useRef<Element>(null);
  // A call goes through 'pending' between two ends: each end it reaches changes this.
  const ended = ends.includes(status);
  useEffect(() => {
    const element = ref.current;
    if (ended && element) keepFocus(element.matches('button') ? element : element.querySelector('button'));
  }, [ended]);
  return ref;
}
