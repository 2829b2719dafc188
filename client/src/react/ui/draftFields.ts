import type { ChangeEvent } from 'react';
import { errorView } from '../errors.ts';

/** The keys of `Draft` whose values are text. */
type TextKeys<Draft> = { [Key in keyof Draft]: Draft[Key] extends string ? Key : never }[keyof Draft] & string;

/**
 * Ties fields to a form's draft: `field(key)` is the props of the field that shows and changes
 * `draft[key]`, with the service's problem with it in `error` (a refused call). The draft's keys
 * are the call's input's, so they are the ones the service names.
 *
 *   const field = draftFields(draft, setDraft, create.error);
 *   <TextField label="Team name" {...field('name')} />
 */
export function draftFields<Draft extends object>(draft: Draft, onChange: (draft: Draft) => void, error: unknown) {
  const problems = errorView(error).fields;
  return (key: TextKeys<Draft>) => ({
    value: draft[key] as string,
    onChange: (event: ChangeEvent<HTMLInputElement | HTMLTextAreaElement | HTMLSelectElement>) =>
      onChange({ ...draft, [key]: event.target.value }),
    error: problems[key],
  });
}
