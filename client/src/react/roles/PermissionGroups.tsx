import type { Catalogue } from './role.ts';

/**
 * A role's permissions, each with what it lets the role do: the description the service's
 * catalogue gives it (behaviour §11), the one source of them. Grouped by resource, in the role's
 * order; a name alone while the catalogue is not in, or for one it no longer declares.
 */
export function PermissionGroups({
  permissions,
  catalogue,
}: {
  permissions: readonly string[];
  catalogue: Catalogue | undefined;
}) {
  if (permissions.length === 0) return <span className="osc-muted">None</span>;
  const descriptions = new Map(catalogue?.map((entry) => [entry.permission, entry.description]));
  const byResource = new Map<string, string[]>();
  for (const permission of permissions) {
    const resource = permission.split(':')[0] ?? permission;
    byResource.set(resource, [...(byResource.get(resource) ?? []), permission]);
  }
  const grouped = [...byResource.values()].flat();
  return (
    <ul className="osc-permission-groups">
      {grouped.map((permission) => (
        <li key={permission}>
          <span className="osc-mono">{permission}</span>
          {descriptions.has(permission) && <span className="osc-muted">: {descriptions.get(permission)}</span>}
        </li>
      ))}
    </ul>
  );
}
