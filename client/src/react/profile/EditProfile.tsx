import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTRPC } from '../service.tsx';
import { Form, FormActions, TextField } from '../ui/index.ts';
import { NameFields, type Names } from './NameFields.tsx';
import type { User } from './useProfile.ts';

/** The form that changes the caller's names; the e-mail address stays as it was created. */
export function EditProfile({
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
      busy={update.isPending}
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
        hint="Read-only: your e-mail address stays as it was when the profile was created."
      />
      <FormActions submit="Save profile" autoFocus={focusSave} />
    </Form>
  );
}
