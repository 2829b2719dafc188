import { errorView, listProblems } from '../errors.ts';
import { draftFields, TextAreaField } from '../ui/index.ts';
import { PermissionsFieldset } from './PermissionsFieldset.tsx';
import type { Catalogue, RoleDraft } from './role.ts';

/**
 * A role's description and permissions with the service's problems with them (`error`, about the
 * `submitted` permissions).
 */
export function RoleFields({
  catalogue,
  draft,
  onChange,
  error,
  submitted,
  descriptionHint,
  autoFocus,
}: {
  catalogue: Catalogue;
  draft: RoleDraft;
  onChange: (draft: RoleDraft) => void;
  error: unknown;
  submitted: readonly string[] | undefined;
  descriptionHint?: string;
  /** The description takes the focus as the form appears. */
  autoFocus?: boolean;
}) {
  const field = draftFields(draft, onChange, error);
  return (
    <>
      <TextAreaField label="Description" hint={descriptionHint} autoFocus={autoFocus} {...field('description')} />
      <PermissionsFieldset
        catalogue={catalogue}
        selected={draft.permissions}
        onChange={(permissions) => onChange({ ...draft, permissions })}
        problems={listProblems(errorView(error).fields, 'permissions', submitted)}
      />
    </>
  );
}
