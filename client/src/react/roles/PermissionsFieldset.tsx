import { useId } from 'react';
import { Badge, Checkbox } from '../ui/index.ts';
import type { Catalogue } from './role.ts';

/**
 * The permissions a role holds, a checkbox each with its description. The owners' own are shown
 * but cannot be chosen (no role may hold them); a permission the role holds that the catalogue no
 * longer has is shown too, so that it can be taken away.
 */
export function PermissionsFieldset({
  catalogue,
  selected,
  onChange,
  problems,
}: {
  catalogue: Catalogue;
  selected: ReadonlySet<string>;
  onChange: (selected: Set<string>) => void;
  problems: readonly string[];
}) {
  const problemsId = useId();
  const known = new Set(catalogue.map((entry) => entry.permission));
  const entries = [
    ...catalogue,
    ...[...selected]
      .filter((permission) => !known.has(permission))
      .map((permission) => ({ permission, description: 'No longer declared by the service.', owners_only: false })),
  ];
  const toggle = (permission: string, checked: boolean) => {
    const next = new Set(selected);
    if (checked) next.add(permission);
    else next.delete(permission);
    onChange(next);
  };
  return (
    <div>
      <fieldset className="osc-permissions" aria-describedby={problems.length ? problemsId : undefined}>
        <legend>Permissions</legend>
        {entries.map((entry) => (
          <Checkbox
            key={entry.permission}
            label={<span className="osc-mono">{entry.permission}</span>}
            hint={
              entry.owners_only ? (
                <>
                  {entry.description} <Badge tone="warning">owners only</Badge>
                </>
              ) : (
                entry.description
              )
            }
            checked={selected.has(entry.permission)}
            disabled={entry.owners_only}
            onChange={(event) => toggle(entry.permission, event.target.checked)}
          />
        ))}
      </fieldset>
      {/* Under the fieldset rather than in its grid of checkboxes. */}
      {problems.length > 0 && (
        <div id={problemsId}>
          {problems.map((problem) => (
            <p key={problem} className="osc-field__error">
              {problem}
            </p>
          ))}
        </div>
      )}
    </div>
  );
}
