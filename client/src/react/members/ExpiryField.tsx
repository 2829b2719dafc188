import { Button, TextField } from '../ui/index.ts';

const EXPIRY_HINT = 'Your local time. Empty: the membership does not end. An owner’s never does.';

/** The membership's end, as a field with a button that empties it (a date field is slow to clear by keyboard). */
export function ExpiryField({
  value,
  onChange,
  error,
}: {
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
}) {
  return (
    <>
      <TextField
        label="Expires"
        type="datetime-local"
        value={value}
        onChange={(event) => onChange(event.target.value)}
        error={error}
        hint={EXPIRY_HINT}
      />
      <Button onClick={() => onChange('')}>Clear expiry</Button>
    </>
  );
}
