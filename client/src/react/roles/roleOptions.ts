import type { Permissions } from '../permissions.ts';
import type { Option } from '../ui/index.ts';
import { KINDS, type Role } from './role.ts';

/**
 * Whether the caller may give `role` (behaviour §11, no escalation): only a role whose every
 * permission they hold, and the owner role only as an owner. The service checks it again.
 */
const mayGive = (giver: Permissions, role: Role) =>
  (role.role !== 'owner' || giver.role === 'owner') && role.permissions.every((permission) => giver.can(permission));

/**
 * A role select's options (the member and key forms'): the roles the organization has that the
 * caller may give, once what they hold is known (`giver`), each with its kind beside its name; and
 * `current` first should the list lack it (an instance role gone from the roles file, or one the
 * caller may not give and a member holds).
 */
export function roleOptions(roles: readonly Role[] | undefined, current?: string, giver?: Permissions): Option[] {
  const options = (roles ?? [])
    .filter((role) => !giver?.loaded || mayGive(giver, role))
    .map((role) => ({
      value: role.role,
      label: `${role.role} (${KINDS[role.kind].label})`,
    }));
  if (current !== undefined && !options.some((option) => option.value === current)) {
    options.unshift({ value: current, label: current });
  }
  return options;
}
