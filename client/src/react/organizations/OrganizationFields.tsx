import { draftFields, ErrorNotice, TextAreaField, TextField } from '../ui/index.ts';

/** What the create and edit forms send of an organization. */
export interface OrganizationDraft {
  organization_name: string;
  organization_description: string;
}

/** An organization's name and description, under the service's refusal (`error`). */
export function OrganizationFields({
  draft,
  onChange,
  error,
  descriptionHint,
}: {
  draft: OrganizationDraft;
  onChange: (draft: OrganizationDraft) => void;
  error: unknown;
  descriptionHint?: string;
}) {
  const field = draftFields(draft, onChange, error);
  return (
    <>
      <ErrorNotice error={error} />
      <TextField label="Organization name" {...field('organization_name')} />
      <TextAreaField label="Description" hint={descriptionHint} {...field('organization_description')} />
    </>
  );
}
