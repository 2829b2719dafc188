import type { ReactNode } from 'react';
import { ErrorNotice } from './ErrorNotice.tsx';
import type { RowEditor } from './useRowEditor.ts';

/**
 * A row with `useRowEditor`'s editor: its cells, then the refusal of its removal, then `form`
 * while the editor is open, each across the table's `columns`.
 */
export function EditableRow({
  editor,
  columns,
  form,
  children,
}: {
  editor: RowEditor;
  columns: number;
  form: ReactNode;
  children: ReactNode;
}) {
  return (
    <>
      <tr>{children}</tr>
      {editor.removal.error ? (
        <tr>
          <td colSpan={columns}>
            <ErrorNotice error={editor.removal.error} />
          </td>
        </tr>
      ) : null}
      {editor.editing && (
        <tr id={editor.formRowId}>
          <td colSpan={columns}>{form}</td>
        </tr>
      )}
    </>
  );
}
