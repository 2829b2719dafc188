import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
// The zod-free list (shared/events.ts would bring zod into the bundle).
import { EVENT_TYPES, type EventType } from '../../../../shared/event-types.ts';
import type { RouterOutputs } from '../../index.ts';
import { errorView, listProblems } from '../errors.ts';
import { useTRPC } from '../service.tsx';
import { Checkbox, ErrorNotice, Form, FormActions, Section, TextAreaField, TextField } from '../ui/index.ts';

export function CreateWebhookForm({
  organizationId,
  onCreated,
}: {
  organizationId: string;
  onCreated: (created: RouterOutputs['webhooks']['create']) => Promise<unknown>;
}) {
  const trpc = useTRPC();
  const [url, setUrl] = useState('');
  const [all, setAll] = useState(true);
  const [types, setTypes] = useState<EventType[]>([]);
  const [description, setDescription] = useState('');
  const create = useMutation(
    trpc.webhooks.create.mutationOptions({
      onSuccess: (created) => {
        setUrl('');
        setAll(true);
        setTypes([]);
        setDescription('');
        return onCreated(created);
      },
    }),
  );
  const fields = errorView(create.error).fields;
  // A problem with the N-th type sent is said of that type.
  const typeProblems = listProblems(fields, 'event_types', create.variables?.event_types);

  return (
    <Section title="New webhook endpoint" description="Its signing secret is shown once, when it is created.">
      <Form
        busy={create.isPending}
        label="New webhook endpoint"
        onSubmit={() =>
          create.mutate({
            organization_id: organizationId,
            url: url.trim(),
            // `["*"]`: every type, those added later too (behaviour §13).
            event_types: all ? ['*'] : types,
            description,
          })
        }
      >
        <ErrorNotice error={create.error} />
        <TextField
          label="Endpoint URL"
          type="url"
          inputMode="url"
          autoComplete="url"
          placeholder="https://example.com/webhooks"
          value={url}
          onChange={(event) => setUrl(event.target.value)}
          error={fields.url}
        />
        <fieldset className="osc-permissions">
          <legend>Event types</legend>
          <Checkbox
            label="All events"
            hint="Every event type, including types added later."
            checked={all}
            onChange={(event) => setAll(event.target.checked)}
          />
          {EVENT_TYPES.map((type) => (
            <Checkbox
              key={type}
              label={type}
              disabled={all}
              checked={all || types.includes(type)}
              onChange={(event) =>
                setTypes(event.target.checked ? [...types, type] : types.filter((each) => each !== type))
              }
            />
          ))}
          {typeProblems.map((problem) => (
            <p key={problem} className="osc-field__error">
              {problem}
            </p>
          ))}
        </fieldset>
        <TextAreaField
          label="Description"
          hint="Optional, up to 500 characters."
          value={description}
          onChange={(event) => setDescription(event.target.value)}
          error={fields.description}
        />
        <FormActions submit="Create webhook" />
      </Form>
    </Section>
  );
}
