/** Gives `target` the focus if nothing holds it any more (its holder was removed or disabled). */
export function keepFocus(target: HTMLElement | null | undefined): void {
  const active = document.activeElement;
  if (!active || active === document.body || (active as HTMLButtonElement).disabled === true) target?.focus();
}
