/**
 * One member of the organization, chosen by typing a part of their name or e-mail: the WAI-ARIA 1.2
 * combobox pattern (an input with a listbox popup, `aria-activedescendant` for the option under the
 * arrow keys). Down and Up move through the options (opening the list), Enter chooses, Escape
 * closes the list and then clears the text. Each pause in typing asks the service's member search
 * (behaviour §15) for the first matches; the whole list of 100,000 members is never read.
 */
import { useQuery } from '@tanstack/react-query';
import { useId, useState, type KeyboardEvent } from 'react';
import { inOrganization, keyedByOrganization, useTRPC } from '../service.tsx';
import { FieldFrame } from '../ui/FieldFrame.tsx';
import { useDebounced } from '../ui/index.ts';
import { fullName, memberQueryInput, type Member } from './member.ts';

const MATCHES_SHOWN = 20;

export interface MemberPickerProps {
  organizationId: string;
  label: string;
  /** The member chosen, if any. */
  value: Member | undefined;
  onChange: (member: Member | undefined) => void;
  /** Members not to offer (the caller, those already in a team). */
  exclude?: (member: Member) => boolean;
  /** The service's problem with the choice, shown under the field. */
  error?: string | undefined;
  hint?: string;
}

const optionLabel = (member: Member) => `${fullName(member)} (${member.email})`;

export function MemberPicker({ organizationId, label, value, onChange, exclude, error, hint }: MemberPickerProps) {
  const trpc = useTRPC();
  const listboxId = useId();
  const [text, setText] = useState(value ? optionLabel(value) : '');
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const search = useDebounced(text, 200);
  // The text of a member chosen is their label, not a search.
  const searching = value && search === optionLabel(value) ? '' : search;
  const matches = useQuery({
    ...keyedByOrganization(
      trpc.members.page.queryOptions(
        // More than are shown: those excluded leave the rest.
        { limit: MATCHES_SHOWN * 5, cursor: null, ...memberQueryInput({ search: searching, sort: 'name' }) },
        inOrganization(organizationId),
      ),
      organizationId,
    ),
    enabled: open,
  });
  // While the text typed waits for its search, the last search's matches are not its own: none is
  // offered, so that Enter or a click cannot choose one of them (nor while its answer loads: the
  // query keeps no previous answer).
  const current = search === text;
  const options = current
    ? (matches.data?.items ?? []).filter((member) => !exclude?.(member)).slice(0, MATCHES_SHOWN)
    : [];
  const activeIndex = Math.min(active, options.length - 1);
  const optionId = (index: number) => `${listboxId}-${index}`;

  const choose = (member: Member) => {
    onChange(member);
    setText(optionLabel(member));
    setOpen(false);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    const move = (to: number) => {
      event.preventDefault();
      if (!open) return setOpen(true);
      if (options.length) setActive((to + options.length) % options.length);
    };
    if (event.key === 'ArrowDown') move(activeIndex + 1);
    else if (event.key === 'ArrowUp') move(activeIndex - 1);
    else if (event.key === 'Enter' && open) {
      // Enter chooses the option, and does not submit the form around the field.
      event.preventDefault();
      const member = options[activeIndex];
      if (member) choose(member);
    } else if (event.key === 'Escape') {
      event.preventDefault();
      if (open) setOpen(false);
      else {
        setText('');
        onChange(undefined);
      }
    }
  };

  const status = matches.isError
    ? 'The members could not be read.'
    : matches.isPending || !current
      ? 'Searching…'
      : options.length === 0
        ? 'No member matches.'
        : `${options.length} ${options.length === 1 ? 'member matches' : 'members match'}.`;
  return (
    <FieldFrame label={label} error={error} hint={hint}>
      {(control) => (
        <div className="osc-combobox">
          <input
            {...control}
            className="osc-input"
            type="text"
            role="combobox"
            autoComplete="off"
            aria-autocomplete="list"
            aria-expanded={open}
            aria-controls={listboxId}
            aria-activedescendant={open && activeIndex >= 0 ? optionId(activeIndex) : undefined}
            value={text}
            placeholder="Type a name or an e-mail"
            onChange={(event) => {
              setText(event.target.value);
              setActive(0);
              setOpen(true);
              if (value) onChange(undefined);
            }}
            onKeyDown={onKeyDown}
            onFocus={() => setOpen(true)}
            onClick={() => setOpen(true)}
            onBlur={() => setOpen(false)}
          />
          <ul className="osc-combobox__list" id={listboxId} role="listbox" aria-label={label} hidden={!open}>
            {options.map((member, index) => (
              <li
                key={member.user_id}
                id={optionId(index)}
                role="option"
                aria-selected={index === activeIndex}
                className="osc-combobox__option"
                // Chosen before the input's blur closes the list.
                onMouseDown={(event) => {
                  event.preventDefault();
                  choose(member);
                }}
              >
                {optionLabel(member)} <span className="osc-muted">{member.role}</span>
              </li>
            ))}
          </ul>
          <p className="osc-visually-hidden" role="status">
            {open ? status : ''}
          </p>
        </div>
      )}
    </FieldFrame>
  );
}
