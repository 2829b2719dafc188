import type { ButtonHTMLAttributes, Ref } from 'react';
import { classes } from './classes.ts';

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
