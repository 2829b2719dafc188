/**
 * The caller's own profile (behaviour §4.1): a form to create their user record while they have
 * none (`users.me` answers 404), then a form to change their names (`users.update`; the e-mail
 * address stays as it was created).
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { RouterOutputs } from '../index.ts';
import { errorView } from './errors.ts';
import { useTRPC } from './service.tsx';
import { Busy, draftFields, ErrorNotice, Form, FormActions, Notice, Section, TextField } from './ui.tsx';

export interface ProfileFormProps {
  /** Called after the profile was created or saved. */
  onSaved?: () => void;
}

type User = RouterOutputs['users']['me'];

/**
 * The caller's user record, or null while they have none (`users.me` answers 404): an answer, kept
 * as data rather than as an error, so that it is neither retried nor refetched by every component
 * that mounts to show it (TanStack Query refetches an errored query on mount, going back to pending).
 */
export function useProfile() {
  const trpc = useTRPC();
  const options = trpc.users.me.queryOptions();
  return useQuery({
    queryKey: options.queryKey,
    queryFn: async (context): Promise<User | null> => {
      try {
        return await options.queryFn!(context);
      } catch (error) {
        if (errorView(error).status === 404) return null;
        throw error;
      }
    },
  });
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

/** The names the create and edit forms send. */
interface Names {
  first_name: string;
  last_name: string;
}

/** The caller's names, under the service's refusal (`error`). */
function NameFields({ names, onChange, error }: { names: Names; onChange: (names: Names) => void; error: unknown }) {
  const field = draftFields(names, onChange, error);
  return (
    <>
      <ErrorNotice error={error} />
      <TextField label="First name" autoComplete="given-name" {...field('first_name')} />
      <TextField label="Last name" autoComplete="family-name" {...field('last_name')} />
    </>
  );
}

function CreateProfile({ onSubmit, onCreated }: { onSubmit: () => void; onCreated: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [names, setNames] = useState<Names>({ first_name: '', last_name: '' });
  const [email, setEmail] = useState('');
  const create = useMutation(
    trpc.users.create.mutationOptions({
      onSuccess: async () => {
        onCreated();
        // Their invitations were a 404 too until now: the invitee is the record's e-mail address.
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.users.pathKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.invitations.mine.queryKey() }),
        ]);
      },
    }),
  );

  return (
    <Form
      label="Create your profile"
      onSubmit={() => {
        onSubmit();
        create.mutate({ ...names, email });
      }}
    >
      <p className="osc-muted">You have no profile yet. Create it to join and create organizations.</p>
      <NameFields names={names} onChange={setNames} error={create.error} />
      <TextField
        label="Email"
        type="email"
        autoComplete="email"
        value={email}
        onChange={(event) => setEmail(event.target.value)}
        error={errorView(create.error).fields.email}
      />
      <FormActions submit="Create profile" busy={create.isPending} />
    </Form>
  );
}

function EditProfile({
  user,
  focusSave,
  onSubmit,
  onSaved,
}: {
  user: User;
  focusSave: boolean;
  onSubmit: () => void;
  onSaved: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [names, setNames] = useState<Names>({ first_name: user.first_name, last_name: user.last_name });
  const update = useMutation(
    trpc.users.update.mutationOptions({
      onSuccess: async () => {
        onSaved();
        await queryClient.invalidateQueries({ queryKey: trpc.users.pathKey() });
      },
    }),
  );

  return (
    <Form
      label="Edit your profile"
      onSubmit={() => {
        onSubmit();
        update.mutate(names);
      }}
    >
      <NameFields names={names} onChange={setNames} error={update.error} />
      <TextField
        label="Email"
        type="email"
        value={user.email}
        readOnly
        hint="Your e-mail address is kept as it was when the profile was created."
      />
      <FormActions submit="Save profile" busy={update.isPending} autoFocus={focusSave} />
    </Form>
  );
}
