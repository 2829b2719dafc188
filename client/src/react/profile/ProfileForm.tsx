/**
 * The caller's own profile (behaviour §4.1): a form to create their user record while they have
 * none (`users.me` answers 404), then a form to change their names (`users.update`; the e-mail
 * address stays as it was created).
 */
import { useState } from 'react';
import { Busy, ErrorNotice, Notice, Section } from '../ui/index.ts';
import { CreateProfile } from './CreateProfile.tsx';
import { EditProfile } from './EditProfile.tsx';
import { useProfile } from './useProfile.ts';

export interface ProfileFormProps {
  /** Called after the profile was created or saved. */
  onSaved?: () => void;
}

export function ProfileForm({ onSaved }: ProfileFormProps) {
  const me = useProfile();
  const [saved, setSaved] = useState<string>();
  // The create form gives way to the edit form: its save button takes the focus the create button had.
  const [justCreated, setJustCreated] = useState(false);
  const missing = me.data === null;

  const done = (message: string) => {
    setSaved(message);
    onSaved?.();
  };

  return (
    <Section title="Your profile">
      {saved && <Notice tone="success">{saved}</Notice>}
      {me.isPending ? (
        <Busy label="Loading your profile…" />
      ) : me.data ? (
        <EditProfile
          key={me.data.id}
          user={me.data}
          focusSave={justCreated}
          onSubmit={() => setSaved(undefined)}
          onSaved={() => done('Profile saved.')}
        />
      ) : missing ? (
        <CreateProfile
          onSubmit={() => setSaved(undefined)}
          onCreated={() => {
            setJustCreated(true);
            done('Profile created.');
          }}
        />
      ) : (
        <ErrorNotice error={me.error} />
      )}
    </Section>
  );
}
