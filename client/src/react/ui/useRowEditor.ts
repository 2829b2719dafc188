import { useId, useRef, useState, type Ref } from 'react';
import type { ButtonProps } from './Button.tsx';
import { useFocusAfter, type CallState } from './useFocusAfter.ts';

/** A row's editor, from `useRowEditor`, for `EditableRow`. */
export interface RowEditor {
  editing: boolean;
  /** Closes the editor, the focus back on the button that opened it. */
  close: () => void;
  /** The props of the row's button that opens and closes the editor. */
  editButton: ButtonProps;
  /** The props of the element that holds the row's removal button. */
  removalHolder: { ref: Ref<HTMLSpanElement> };
  removal: CallState;
  formRowId: string;
}

/**
 * A table row that is edited in place and can be removed (`removal`, the removal's call): opening
 * the editor clears the last refusal; closing it gives the focus back to the button that opened it
 * (the form held it, or its busy Save did); a refused removal gives the focus back to its button.
 */
export function useRowEditor(removal: CallState & { reset: () => void }): RowEditor {
  const [editing, setEditing] = useState(false);
  const opener = useRef<HTMLButtonElement>(null);
  const removalHolder = useFocusAfter<HTMLSpanElement>(removal.status, ['error']);
  const formRowId = useId();
  const open = () => {
    removal.reset();
    setEditing(true);
  };
  const close = () => {
    setEditing(false);
    opener.current?.focus();
  };
  return {
    editing,
    close,
    editButton: {
      ref: opener,
      'aria-expanded': editing,
      'aria-controls': editing ? formRowId : undefined,
      onClick: editing ? close : open,
    },
    removalHolder: { ref: removalHolder },
    removal,
    formRowId,
  };
}
