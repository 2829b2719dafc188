/**
 * The small design system every component is built from, one part a file: buttons, fields, forms,
 * notices, sections, tables with their rows' editors and panels, a busy indicator, a two-step
 * confirmation and the pager of a list read by cursor, styled by `../styles.css` (classes
 * `osc-*`, colours and spacing in its custom properties, so a host application can retheme them).
 *
 * Accessibility is built in rather than left to each page: a field's label, hint and error are
 * tied to its input (`aria-describedby`, `aria-invalid`), errors are announced (`role="alert"`),
 * busy states are announced politely, and a confirmation moves the focus to its own buttons.
 */
export { Badge } from './Badge.tsx';
export { Busy } from './Busy.tsx';
export { Button, type ButtonProps } from './Button.tsx';
export { Checkbox } from './Checkbox.tsx';
export { ConfirmButton } from './ConfirmButton.tsx';
export { CopyButton } from './CopyButton.tsx';
export { Disclosure } from './Disclosure.tsx';
export { draftFields } from './draftFields.ts';
export { EditableRow } from './EditableRow.tsx';
export { EditorForm } from './EditorForm.tsx';
export { EmptyState } from './EmptyState.tsx';
export { ErrorNotice } from './ErrorNotice.tsx';
export { FocusedNotice } from './FocusedNotice.tsx';
export { Form } from './Form.tsx';
export { FormActions } from './FormActions.tsx';
export { keepFocus } from './keepFocus.ts';
export { Notice } from './Notice.tsx';
export { Pager } from './Pager.tsx';
export { QueryList } from './QueryList.tsx';
export { Section } from './Section.tsx';
export { SecretNotice } from './SecretNotice.tsx';
export { SelectField, type Option } from './SelectField.tsx';
export { Table } from './Table.tsx';
export { TextAreaField } from './TextAreaField.tsx';
export { TextField } from './TextField.tsx';
export { Time } from './Time.tsx';
export { useCursorPages, type CursorPages } from './useCursorPages.ts';
export { useDebounced } from './useDebounced.ts';
export { useFocusAfter, type CallState } from './useFocusAfter.ts';
export { useRowEditor, type RowEditor } from './useRowEditor.ts';
export { useRowPanel } from './useRowPanel.ts';
