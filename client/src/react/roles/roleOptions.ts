import type { Option } from '../ui/index.ts';
import { KINDS, type Role } from './role.ts';

/**
 * A role select's options (the member forms'): every role the organization has, its kind beside
 * its name, and `current` first should the list lack it (an instance role gone from the roles file).
 */
export function roleOptions(roles: readonly Role[] | undefined, current?: string): Option[] {
  const options = (roles ?? []).map((role) => ({
    value: role.role,
    label: `${role.role} (${KINDS[role.kind].label})`,
  }));
  if (current !== undefined && !options.some((option) => option.value === current)) {
    options.unshift({ value: current, label: current });
  }
  return options;
}
