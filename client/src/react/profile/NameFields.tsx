import { draftFields, ErrorNotice, TextField } from '../ui/index.ts';

/** The names the create and edit forms send. */
export interface Names {
  first_name: string;
  last_name: string;
}

/** The caller's names, under the service's refusal (`error`). */
export function NameFields({
  names,
  onChange,
  error,
}: {
  names: Names;
  onChange: (names: Names) => void;
  error: unknown;
}) {
  const field = draftFields(names, onChange, error);
  return (
    <>
      <ErrorNotice error={error} />
      <TextField label="First name" autoComplete="given-name" {...field('first_name')} />
      <TextField label="Last name" autoComplete="family-name" {...field('last_name')} />
    </>
  );
}
