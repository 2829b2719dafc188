/**
 * The small design system every component is built from: buttons, fields, forms, notices,
 * sections, tables with their rows' editors and panels, a busy indicator and a two-step
 * confirmation, styled by `styles.css` (classes `osc-*`,
 * colours and spacing in its custom properties, so a host application can retheme them).
 *
 * Accessibility is built in rather than left to each page: a field's label, hint and error are
 * tied to its input (`aria-describedby`, `aria-invalid`), errors are announced (`role="alert"`),
 * busy states are announced politely, and a confirmation moves the focus to its own buttons.
 */
import {
  useEffect,
  useId,
  useRef,
  useState,
  type ButtonHTMLAttributes,
  type ChangeEvent,
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type Ref,
  type RefObject,
  type SelectHTMLAttributes,
  type TableHTMLAttributes,
  type TextareaHTMLAttributes,
} from 'react';
import { errorView } from './errors.ts';

const classes = (...names: Array<string | false | undefined>) => names.filter(Boolean).join(' ');

export interface ButtonProps extends ButtonHTMLAttributes<HTMLButtonElement> {
  variant?: 'primary' | 'secondary' | 'danger' | 'ghost';
  /** Disables the button and says so while its work runs. */
  busy?: boolean;
  ref?: Ref<HTMLButtonElement>;
}

/**
 * While busy, the button refuses clicks and says so (`aria-disabled`) but stays focusable: a
 * `disabled` one would drop the keyboard's focus to the page in the middle of the work.
 */
export function Button({
  variant = 'secondary',
  busy = false,
  className,
  children,
  onClick,
  type = 'button',
  ...rest
}: ButtonProps) {
  return (
    <button
      type={busy ? 'button' : type}
      {...rest}
      onClick={busy ? (event) => event.preventDefault() : onClick}
      className={classes('osc-button', `osc-button--${variant}`, className)}
      aria-disabled={busy || undefined}
      aria-busy={busy || undefined}
    >
      {busy && <span className="osc-spinner" aria-hidden="true" />}
      {children}
    </button>
  );
}

interface FieldFrameProps {
  label: string;
  /** The service's problem with this field, shown under it. */
  error?: string | undefined;
  hint?: ReactNode;
  /** The control, given the attributes that tie it to its label, hint and error. */
  children: (control: ControlAttributes) => ReactNode;
}

interface ControlAttributes {
  id: string;
  'aria-invalid': true | undefined;
  'aria-describedby': string | undefined;
}

function FieldFrame({ label, error, hint, children }: FieldFrameProps) {
  const id = useId();
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={classes('osc-field', error && 'osc-field--invalid')}>
      <label className="osc-field__label" htmlFor={id}>
        {label}
      </label>
      {children({ id, 'aria-invalid': error ? true : undefined, 'aria-describedby': describedBy })}
      {hint && (
        <p className="osc-field__hint" id={hintId}>
          {hint}
        </p>
      )}
      {error && (
        <p className="osc-field__error" id={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}

type FieldProps<Attributes> = Omit<Attributes, 'id'> & { label: string; error?: string | undefined; hint?: ReactNode };

export function TextField({
  label,
  error,
  hint,
  className,
  ...input
}: FieldProps<InputHTMLAttributes<HTMLInputElement>>) {
  return (
    <FieldFrame label={label} error={error} hint={hint}>
      {(control) => <input {...input} {...control} className={classes('osc-input', className)} />}
    </FieldFrame>
  );
}

export function TextAreaField({
  label,
  error,
  hint,
  className,
  ...input
}: FieldProps<TextareaHTMLAttributes<HTMLTextAreaElement>>) {
  return (
    <FieldFrame label={label} error={error} hint={hint}>
      {(control) => <textarea {...input} {...control} className={classes('osc-input', 'osc-textarea', className)} />}
    </FieldFrame>
  );
}

export interface Option {
  value: string;
  label: string;
}

export function SelectField({
  label,
  error,
  hint,
  options,
  className,
  ...select
}: FieldProps<SelectHTMLAttributes<HTMLSelectElement>> & { options: readonly Option[] }) {
  return (
    <FieldFrame label={label} error={error} hint={hint}>
      {(control) => (
        <select {...select} {...control} className={classes('osc-input', 'osc-select', className)}>
          {options.map((option) => (
            <option key={option.value} value={option.value}>
              {option.label}
            </option>
          ))}
        </select>
      )}
    </FieldFrame>
  );
}

export function Checkbox({
  label,
  hint,
  className,
  ...input
}: Omit<InputHTMLAttributes<HTMLInputElement>, 'type' | 'id'> & { label: ReactNode; hint?: ReactNode }) {
  const id = useId();
  return (
    <div className={classes('osc-checkbox', className)}>
      <input {...input} type="checkbox" id={id} aria-describedby={hint ? `${id}-hint` : undefined} />
      <label htmlFor={id}>{label}</label>
      {hint && (
        <p className="osc-field__hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
    </div>
  );
}

/** The keys of `Draft` whose values are text. */
type TextKeys<Draft> = { [Key in keyof Draft]: Draft[Key] extends string ? Key : never }[keyof Draft] & string;

/**
 * Ties fields to a form's draft: `field(key)` is the props of the field that shows and changes
 * `draft[key]`, with the service's problem with it in `error` (a refused call). The draft's keys
 * are the call's input's, so they are the ones the service names.
 *
 *   const field = draftFields(draft, setDraft, create.error);
 *   <TextField label="Team name" {...field('name')} />
 */
export function draftFields<Draft extends object>(draft: Draft, onChange: (draft: Draft) => void, error: unknown) {
  const problems = errorView(error).fields;
  return (key: TextKeys<Draft>) => ({
    value: draft[key] as string,
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) =>
      onChange({ ...draft, [key]: event.target.value }),
    error: problems[key],
  });
}

/**
 * A form whose fields the service validates (`noValidate`: its messages, not the browser's, are
 * shown next to the fields), submitted by Enter or its submit button.
 */
export function Form({
  onSubmit,
  children,
  className,
  label,
}: {
  onSubmit: () => void;
  children: ReactNode;
  className?: string;
  /** The form's accessible name. */
  label: string;
}) {
  const submit = (event: FormEvent) => {
    event.preventDefault();
    onSubmit();
  };
  return (
    <form noValidate onSubmit={submit} className={classes('osc-form', className)} aria-label={label}>
      {children}
    </form>
  );
}

/** A form's buttons: its submit button, busy while the form's work runs, then Cancel if it can be cancelled. */
export function FormActions({
  submit,
  busy,
  onCancel,
  submitRef,
  autoFocus,
}: {
  /** The submit button's text. */
  submit: string;
  busy: boolean;
  onCancel?: () => void;
  submitRef?: Ref<HTMLButtonElement>;
  /** The submit button takes the focus as it appears. */
  autoFocus?: boolean;
}) {
  return (
    <div className="osc-form__actions">
      <Button ref={submitRef} type="submit" variant="primary" busy={busy} autoFocus={autoFocus}>
        {submit}
      </Button>
      {onCancel && (
        <Button variant="ghost" onClick={onCancel}>
          Cancel
        </Button>
      )}
    </div>
  );
}

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

/**
 * A table row's inline editor: the form with Save and Cancel under the service's refusal. Escape
 * cancels; a refused save gives the focus back to Save, which had it.
 */
export function EditorForm({
  label,
  saving,
  loadError,
  onSubmit,
  onClose,
  className,
  children,
}: {
  /** The form's accessible name. */
  label: string;
  saving: CallState;
  /** A failure to read what the fields need, said first. */
  loadError?: unknown;
  onSubmit: () => void;
  onClose: () => void;
  className?: string;
  children: ReactNode;
}) {
  const save = useFocusAfter(saving.status, ['error']);
  return (
    <div className="osc-stack" onKeyDown={(event) => event.key === 'Escape' && onClose()}>
      <ErrorNotice error={loadError} />
      <ErrorNotice error={saving.error} />
      <Form label={label} onSubmit={onSubmit} className={className}>
        {children}
        <FormActions submit="Save" busy={saving.isPending} submitRef={save} onCancel={onClose} />
      </Form>
    </div>
  );
}

/** The service's message for a failed call, announced; nothing when there is no error. */
export function ErrorNotice({ error, className }: { error: unknown; className?: string }) {
  if (!error) return null;
  return (
    <div role="alert" className={classes('osc-notice', 'osc-notice--error', className)}>
      {errorView(error).message}
    </div>
  );
}

export function Notice({
  tone = 'info',
  children,
  className,
}: {
  tone?: 'info' | 'success' | 'warning';
  children: ReactNode;
  className?: string;
}) {
  return (
    <div role="status" className={classes('osc-notice', `osc-notice--${tone}`, className)}>
      {children}
    </div>
  );
}

/**
 * A success message that takes the focus as it appears: said where the control the focus was on
 * has just gone (a row removed, a form closed). Nothing without a message.
 */
export function FocusedNotice({ children }: { children?: string | undefined }) {
  const notice = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (children) notice.current?.focus();
  }, [children]);
  if (!children) return null;
  return (
    <div ref={notice} tabIndex={-1}>
      <Notice tone="success">{children}</Notice>
    </div>
  );
}

/** Gives `target` the focus if nothing holds it any more (its holder was removed or disabled). */
export function keepFocus(target: HTMLElement | null | undefined): void {
  const active = document.activeElement;
  if (!active || active === document.body || (active as HTMLButtonElement).disabled === true) target?.focus();
}

/** Said while something loads or long work runs; screen readers hear it once. */
export function Busy({ label = 'Loading…' }: { label?: string }) {
  return (
    <p className="osc-busy" role="status" aria-live="polite">
      <span className="osc-spinner" aria-hidden="true" />
      {label}
    </p>
  );
}

/** A titled card: a page's part. `actions` sit beside the title. */
export function Section({
  title,
  description,
  actions,
  children,
  className,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
  children?: ReactNode;
  className?: string;
}) {
  const id = useId();
  return (
    <section className={classes('osc-section', className)} aria-labelledby={id}>
      <header className="osc-section__header">
        <div>
          <h2 className="osc-section__title" id={id}>
            {title}
          </h2>
          {description && <p className="osc-section__description">{description}</p>}
        </div>
        {actions && <div className="osc-section__actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

export function Badge({
  children,
  tone = 'neutral',
}: {
  children: ReactNode;
  tone?: 'neutral' | 'accent' | 'success' | 'danger' | 'warning';
}) {
  return <span className={classes('osc-badge', `osc-badge--${tone}`)}>{children}</span>;
}

export function EmptyState({ children }: { children: ReactNode }) {
  return <p className="osc-empty">{children}</p>;
}

/**
 * What a list read from the service shows: busy while `query` loads, the service's message if it
 * failed, `empty` when there is nothing, else `children` with the `items`.
 */
export function QueryList<Item>({
  query,
  items,
  loading,
  empty,
  children,
}: {
  query: { isPending: boolean; isError: boolean; error: unknown };
  /** What the answer lists. */
  items: readonly Item[] | undefined;
  /** Said while it loads, e.g. "Loading members…". */
  loading: string;
  empty: ReactNode;
  children: (items: readonly Item[]) => ReactNode;
}) {
  if (query.isPending) return <Busy label={loading} />;
  if (query.isError) return <ErrorNotice error={query.error} />;
  if (!items?.length) return <EmptyState>{empty}</EmptyState>;
  return children(items);
}

/**
 * A table, named by `label`, in a frame that scrolls sideways on a narrow screen; `children` are its
 * rows. `columns` are its headers; `actions` adds a last column, for each row's buttons, whose
 * header only screen readers hear. Without `columns`, each row has its own header (`scope="row"`).
 */
export function Table({
  label,
  columns,
  actions = false,
  className,
  children,
  ...table
}: Omit<TableHTMLAttributes<HTMLTableElement>, 'aria-label'> & {
  label: string;
  columns?: readonly string[];
  actions?: boolean;
  ref?: Ref<HTMLTableElement>;
}) {
  return (
    <div className="osc-table-scroll">
      <table {...table} className={classes('osc-table', className)} aria-label={label}>
        {columns && (
          <thead>
            <tr>
              {columns.map((column) => (
                <th key={column} scope="col">
                  {column}
                </th>
              ))}
              {actions && (
                <th scope="col">
                  <span className="osc-visually-hidden">Actions</span>
                </th>
              )}
            </tr>
          </thead>
        )}
        <tbody>{children}</tbody>
      </table>
    </div>
  );
}

/** A row's editor, from `useRowEditor`, for `EditableRow`. */
export interface RowEditor {
  editing: boolean;
  /** Closes the editor, the focus back on the button that opened it. */
  close: () => void;
  /** The props of the row's button that opens and closes the editor. */
  editButton: ButtonProps;
  /** For the element that holds the row's removal button. */
  removalHolder: Ref<HTMLSpanElement>;
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
  const removalHolder = useFocusAfter<HTMLSpanElement>(removal.status, ['error'], (holder) =>
    holder.querySelector('button'),
  );
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
    removalHolder,
    removal,
    formRowId,
  };
}

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

/**
 * Which row of a table has its panel open, shown beside the table (a row's members, log or editor):
 * the row's button opens and closes it, and the focus goes back to that button when the panel
 * closes itself.
 */
export function useRowPanel() {
  const ids = useId();
  const [openKey, setOpenKey] = useState<string>();
  const buttonId = (key: string) => `${ids}-${key}`;
  const [returnFocusTo, setReturnFocusTo] = useState<string>();
  useEffect(() => {
    if (!returnFocusTo) return;
    document.getElementById(returnFocusTo)?.focus();
    setReturnFocusTo(undefined);
  }, [returnFocusTo]);
  return {
    /** The key of the row whose panel is open. */
    openKey,
    /** The props of the button of the row `key`. */
    button: (key: string): ButtonProps => ({
      id: buttonId(key),
      'aria-expanded': key === openKey,
      onClick: () => setOpenKey(key === openKey ? undefined : key),
    }),
    /** Closes the panel of the row `key`, the focus back on its button. */
    close: (key: string) => {
      setOpenKey(undefined);
      setReturnFocusTo(buttonId(key));
    },
    /** Closes the panel of the row `key` if it is open, the row being gone. */
    forget: (key: string) => setOpenKey((open) => (open === key ? undefined : open)),
  };
}

/**
 * A destructive action in two steps: the button, then "Confirm" and "Cancel" in its place, the
 * focus on "Cancel" so that Enter by habit changes nothing. Escape cancels. Either way the focus
 * goes back to the button.
 */
export function ConfirmButton({
  children,
  confirmLabel,
  onConfirm,
  busy = false,
  disabled = false,
  variant = 'danger',
  className,
}: {
  children: ReactNode;
  /** The question, e.g. "Remove Ada?". */
  confirmLabel: string;
  onConfirm: () => void;
  busy?: boolean;
  /** Nothing to confirm yet (a choice still to be made). */
  disabled?: boolean;
  variant?: ButtonProps['variant'];
  className?: string;
}) {
  const [asking, setAsking] = useState(false);
  const cancel = useRef<HTMLButtonElement>(null);
  const opener = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) cancel.current?.focus();
  }, [asking]);
  const stopAsking = () => {
    setAsking(false);
    queueMicrotask(() => opener.current?.focus());
  };
  if (!asking) {
    return (
      <Button
        ref={opener}
        variant={variant}
        busy={busy}
        disabled={disabled}
        className={className}
        onClick={() => setAsking(true)}
      >
        {children}
      </Button>
    );
  }
  return (
    <span
      className="osc-confirm"
      role="group"
      aria-label={confirmLabel}
      onKeyDown={(event) => event.key === 'Escape' && stopAsking()}
    >
      <span className="osc-confirm__question">{confirmLabel}</span>
      <Button
        variant={variant}
        onClick={() => {
          // Back on the button (busy while the work runs); a component whose row goes with the
          // work moves the focus on itself.
          stopAsking();
          onConfirm();
        }}
      >
        Confirm
      </Button>
      <Button ref={cancel} variant="ghost" onClick={stopAsking}>
        Cancel
      </Button>
    </span>
  );
}

/** A date and time as the reader's locale writes it, with the exact instant on hover. */
export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <span className="osc-muted">never</span>;
  // The member list's legacy `YYYY-MM-DD hh:mm:ss` is UTC too.
  const instant = new Date(/Z$|[+-]\d\d:\d\d$/.test(value) ? value : `${value.replace(' ', 'T')}Z`);
  if (Number.isNaN(instant.getTime())) return <span>{value}</span>;
  return (
    <time dateTime={instant.toISOString()} title={instant.toISOString()}>
      {instant.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' })}
    </time>
  );
}
