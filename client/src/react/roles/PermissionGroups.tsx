/** A role's permissions by resource, one line each (`members: read, update`), rather than a wall of names. */
export function PermissionGroups({ permissions }: { permissions: readonly string[] }) {
  const groups = new Map<string, string[]>();
  for (const permission of permissions) {
    const [resource = permission, action = ''] = permission.split(':');
    groups.set(resource, [...(groups.get(resource) ?? []), action]);
  }
  if (groups.size === 0) return <span className="osc-muted">None</span>;
  return (
    <ul className="osc-permission-groups">
      {[...groups].map(([resource, actions]) => (
        <li key={resource}>
          <strong>{resource}</strong>: {actions.join(', ')}
        </li>
      ))}
    </ul>
  );
}
