/**
 * Whether two lists hold the same items in the same order: how a change compares a list field's
 * value before and after (a role's permissions, a team's roles, a webhook's event types), so that
 * it records only what changed.
 */
export const sameList = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((item, index) => item === b[index]);
