import { QueryList, SelectField, type Option } from '../ui/index.ts';
import { useOrganizations } from './useOrganizations.ts';

export interface OrganizationSwitcherProps {
  /** The chosen organization's id, if any, in any letter case. */
  value: string | undefined;
  onChange: (organizationId: string) => void;
  /** The select's label; "Organization" by default. */
  label?: string;
}

/** A select over the organizations the caller belongs to. */
export function OrganizationSwitcher({ value, onChange, label = 'Organization' }: OrganizationSwitcherProps) {
  const organizations = useOrganizations();
  return (
    <QueryList
      query={organizations}
      items={organizations.data}
      loading="Loading organizations…"
      empty="You do not belong to any organization yet."
    >
      {(list) => {
        const options = organizationOptions(list);
        // An organization id is a UUID, read in any letter case (behaviour §4.4): a link may spell it in capitals.
        const chosen = options.find((option) => option.value.toLowerCase() === value?.toLowerCase());
        return (
          <SelectField
            label={label}
            value={chosen ? chosen.value : ''}
            options={chosen ? options : [{ value: '', label: 'Choose an organization' }, ...options]}
            onChange={(event) => event.target.value && onChange(event.target.value)}
          />
        );
      }}
    </QueryList>
  );
}

/** The switcher's options, one an organization: names need not be unique (behaviour §4.2), a shared one is told apart by the id. */
function organizationOptions(organizations: ReadonlyArray<{ id: string; name: string }>): Option[] {
  const names = organizations.map((organization) => organization.name);
  return organizations.map(({ id, name }) => ({
    value: id,
    label: names.indexOf(name) === names.lastIndexOf(name) ? name : `${name} (${id})`,
  }));
}
