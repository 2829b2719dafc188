import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { errorView } from '../errors.ts';
import { useTRPC } from '../service.tsx';
import { Form, FormActions, TextField } from '../ui/index.ts';
import { NameFields, type Names } from './NameFields.tsx';

/** The form that creates the caller's user record: names and e-mail address. */
export function CreateProfile({ onSubmit, onCreated }: { onSubmit: () => void; onCreated: () => void }) {
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
      busy={create.isPending}
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
      <FormActions submit="Create profile" />
    </Form>
  );
}
