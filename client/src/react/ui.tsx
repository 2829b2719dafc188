/**
 * The small design system every component is built from: buttons, fields, notices, sections,
 * tables, a busy indicator and a two-step confirmation, styled by `styles.css` (classes `osc-*`,
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
  type FormEvent,
  type InputHTMLAttributes,
  type ReactNode,
  type Ref,
  type SelectHTMLAttributes,
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
  children: (ids: { id: string; describedBy: string | undefined }) => ReactNode;
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
      {children({ id, describedBy })}
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
      {({ id, describedBy }) => (
        <input
          {...input}
          id={id}
          className={classes('osc-input', className)}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
        />
      )}
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
      {({ id, describedBy }) => (
        <textarea
          {...input}
          id={id}
          className={classes('osc-input', 'osc-textarea', className)}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
        />
      )}
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
      {({ id, describedBy }) => (
        <select
          {...select}
          id={id}
          className={classes('osc-input', 'osc-select', className)}
          aria-invalid={error ? true : undefined}
          aria-describedby={describedBy}
        >
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
