import { useEffect, useId, useRef, useState } from 'react';
import type { ButtonProps } from './Button.tsx';

/**
 * Which row of a table has its panel open, shown beside the table (a row's members, log or editor):
 * the row's button opens and closes it, and the focus goes back to that button when the panel
 * closes itself.
 */
export function useRowPanel() {
  const ids = useId();
  const [openKey, setOpenKey] = useState<string>();
  const buttonId = (key: string) => `${ids}-${key}`;
  // The button that gets the focus once the panel it opened has closed.
  const returnFocusTo = useRef<string>(undefined);
  useEffect(() => {
    if (openKey !== undefined || returnFocusTo.current === undefined) return;
    document.getElementById(returnFocusTo.current)?.focus();
    returnFocusTo.current = undefined;
  }, [openKey]);
  return {
    /** The key of the row whose panel is open. */
    openKey,
    /** The props of the button of the row `key`. */
    button: (key: string): ButtonProps => ({
      id: buttonId(key),
      'aria-expanded': key === openKey,
      onClick: () => setOpenKey(key === openKey ? undefined : key),
    }),
    /** Opens the panel of the row `key` (another row's closes). */
    open: (key: string) => setOpenKey(key),
    /** Closes the panel of the row `key`, the focus back on its button. */
    close: (key: string) => {
      returnFocusTo.current = buttonId(key);
      setOpenKey(undefined);
    },
    /** Closes the panel of the row `key` if it is open, the row being gone. */
    forget: (key: string) => setOpenKey((open) => (open === key ? undefined : open)),
  };
}
