/**
 * An organization's members (behaviour §4.3, §11): `MembersTable` shows them a page at a time
 * (`members.page`, cursor pages) with what the caller's permissions allow on each row: changing the
 * role and the membership's expiry, removing, and on their own row leaving; `AddMemberForm` adds a
 * user by e-mail. The member procedures name the organization in a header (`inOrganization`).
 */
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { RouterOutputs } from '../index.ts';
import { errorView } from './errors.ts';
import { usePermissions } from './permissions.ts';
import { roleOptions } from './roles.tsx';
import { inOrganization, keyedByOrganization, useTRPC } from './service.tsx';
import {
  Button,
  ConfirmButton,
  EditableRow,
  EditorForm,
  ErrorNotice,
  Form,
  FormActions,
  keepFocus,
  Notice,
  QueryList,
  Section,
  SelectField,
  Table,
  TextField,
  Time,
  useFocusAfter,
  useRowEditor,
} from './ui.tsx';

type Member = RouterOutputs['members']['page']['items'][number];

const DEFAULT_PAGE_SIZE = 50;
const COLUMNS = ['Name', 'Email', 'Role', 'Expires', 'Joined'];

const fullName = (member: Member) => `${member.first_name} ${member.last_name}`.trim() || member.email;

/** An instant as a `datetime-local` input shows it: the reader's local time, to the minute. */
function toLocalInput(instant: string | null): string {
  if (!instant) return '';
  const date = new Date(instant);
  if (Number.isNaN(date.getTime())) return '';
  return new Date(date.getTime() - date.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
}

/** A `datetime-local` value (the reader's local time) as the ISO 8601 UTC instant the service takes. */
function fromLocalInput(value: string): string {
  const date = new Date(value);
  // A value the browser could not complete goes as it is, for the service to say what is wrong.
  return Number.isNaN(date.getTime()) ? value : date.toISOString();
}

const EXPIRY_HINT = 'Your local time. Empty: the membership does not end. An owner’s never does.';

/** The membership's end, as a field with a button that empties it (a date field is slow to clear by keyboard). */
function ExpiryField({ value, onChange, error }: { value: string; onChange: (value: string) => void; error?: string }) {
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

export interface MembersTableProps {
  organizationId: string;
  /** Members a page, 1 to 1000; 50 unless given. */
  pageSize?: number;
  /** Called once the caller has left the organization from their own row (to go elsewhere). */
  onLeft?: () => void;
}

/** The organization's members a page at a time, each row with the changes the caller may make. */
export function MembersTable(props: MembersTableProps) {
  // Another organization or page size starts again on the first page, with no row open.
  return <MembersPages key={`${props.organizationId} ${props.pageSize ?? DEFAULT_PAGE_SIZE}`} {...props} />;
}

function MembersPages({ organizationId, pageSize = DEFAULT_PAGE_SIZE, onLeft }: MembersTableProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { can, userId } = usePermissions(organizationId);
  // The cursors of the pages after the first that led here, the last one the page shown: Previous
  // goes back without the service having to page backwards.
  const [cursors, setCursors] = useState<string[]>([]);
  const [moved, setMoved] = useState<'next' | 'previous'>();
  const [removed, setRemoved] = useState<string>();
  const [left, setLeft] = useState(false);
  const table = useRef<HTMLTableElement>(null);
  const previousButton = useRef<HTMLButtonElement>(null);
  const nextButton = useRef<HTMLButtonElement>(null);
  const leftNotice = useRef<HTMLDivElement>(null);
  const page = useQuery({
    ...keyedByOrganization(
      trpc.members.page.queryOptions(
        { limit: pageSize, cursor: cursors.at(-1) ?? null },
        inOrganization(organizationId),
      ),
      organizationId,
    ),
    // The page shown stays while the next one loads; its pager button says it is busy.
    placeholderData: keepPreviousData,
    enabled: !left,
  });
  const loadingPage = page.isPlaceholderData;

  // A pager button disabled by its own loading, or for good on the first or last page, hands the
  // focus to its neighbour rather than to nobody.
  useEffect(() => {
    if (moved === undefined || loadingPage) return;
    const [pressed, other] =
      moved === 'next' ? [nextButton.current, previousButton.current] : [previousButton.current, nextButton.current];
    keepFocus(pressed?.disabled ? other : pressed);
    setMoved(undefined);
  }, [moved, loadingPage]);
  // A removed member's row took the focus with it.
  useEffect(() => {
    if (removed !== undefined) keepFocus(table.current);
  }, [removed]);
  useEffect(() => {
    if (left) leftNotice.current?.focus();
  }, [left]);

  const goTo = (pages: string[], direction: 'next' | 'previous') => {
    setCursors(pages);
    setMoved(direction);
    setRemoved(undefined);
  };
  const nextCursor = page.data?.nextCursor;
  const leave = () => {
    setLeft(true);
    // The caller's organizations and permissions change; this list is no longer theirs to read.
    void queryClient.invalidateQueries({ queryKey: trpc.organizations.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.permissions.mine.pathKey() });
    onLeft?.();
  };

  if (left) {
    return (
      <Section title="Members">
        <div ref={leftNotice} tabIndex={-1}>
          <Notice tone="success">You left this organization.</Notice>
        </div>
      </Section>
    );
  }
  const pageNumber = cursors.length + 1;
  return (
    <Section title="Members" description="Everyone in the organization, in the order they joined.">
      {removed !== undefined && <Notice tone="success">{removed} was removed from the organization.</Notice>}
      <QueryList
        query={page}
        items={page.data?.items}
        loading="Loading members…"
        empty={pageNumber === 1 ? 'This organization has no members.' : 'No members on this page.'}
      >
        {(members) => (
          <Table
            label="Members"
            columns={COLUMNS}
            actions
            aria-busy={loadingPage || undefined}
            ref={table}
            tabIndex={-1}
          >
            {members.map((member) => (
              <MemberRow
                key={member.user_id}
                organizationId={organizationId}
                member={member}
                self={member.user_id === userId}
                canUpdate={can('members:update')}
                canRemove={can('members:remove')}
                onRemoved={() => setRemoved(fullName(member))}
                onLeft={leave}
              />
            ))}
          </Table>
        )}
      </QueryList>
      {page.isSuccess && (
        <nav className="osc-pager" aria-label="Member pages">
          <span className="osc-muted" aria-live="polite">
            Page {pageNumber}
          </span>
          <Button
            ref={previousButton}
            disabled={pageNumber === 1}
            busy={loadingPage && moved === 'previous'}
            onClick={() => goTo(cursors.slice(0, -1), 'previous')}
          >
            Previous page
          </Button>
          <Button
            ref={nextButton}
            disabled={!nextCursor}
            busy={loadingPage && moved === 'next'}
            onClick={() => nextCursor && goTo([...cursors, nextCursor], 'next')}
          >
            Next page
          </Button>
        </nav>
      )}
    </Section>
  );
}

interface MemberRowProps {
  organizationId: string;
  member: Member;
  /** The caller's own row: leaving instead of removing. */
  self: boolean;
  canUpdate: boolean;
  canRemove: boolean;
  onRemoved: () => void;
  onLeft: () => void;
}

function MemberRow({ organizationId, member, self, canUpdate, canRemove, onRemoved, onLeft }: MemberRowProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const name = fullName(member);
  const remove = useMutation(
    trpc.members.remove.mutationOptions({
      ...inOrganization(organizationId),
      onSuccess: async () => {
        if (self) return onLeft();
        // Removing a member takes them out of the organization's teams too (behaviour §12).
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.members.pathKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.teams.pathKey() }),
        ]);
        onRemoved();
      },
    }),
  );
  // A removal may be refused: the last owner's (409).
  const editor = useRowEditor(remove);
  return (
    <EditableRow
      editor={editor}
      columns={COLUMNS.length + 1}
      form={<MemberEditForm organizationId={organizationId} member={member} name={name} onClose={editor.close} />}
    >
      <td>{name}</td>
      <td>{member.email}</td>
      <td>{member.role}</td>
      <td>
        <Time value={member.expires_at} />
      </td>
      <td>
        <Time value={member.created_at} />
      </td>
      <td className="osc-table__actions">
        <span className="osc-row">
          {canUpdate && <Button {...editor.editButton}>Edit</Button>}
          {(self || canRemove) && (
            <span ref={editor.removalHolder}>
              <ConfirmButton
                confirmLabel={self ? 'Leave this organization?' : `Remove ${name}?`}
                busy={remove.isPending}
                onConfirm={() => remove.mutate({ user_id: member.user_id })}
              >
                {self ? 'Leave organization' : 'Remove'}
              </ConfirmButton>
            </span>
          )}
        </span>
      </td>
    </EditableRow>
  );
}

function MemberEditForm({
  organizationId,
  member,
  name,
  onClose,
}: {
  organizationId: string;
  member: Member;
  name: string;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const roles = useQuery(trpc.roles.list.queryOptions({ organization_id: organizationId }));
  const initialExpiry = toLocalInput(member.expires_at);
  const [role, setRole] = useState(member.role);
  const [expiry, setExpiry] = useState(initialExpiry);
  const change = useMutation(
    trpc.members.changeRole.mutationOptions({
      ...inOrganization(organizationId),
      onSuccess: async () => {
        // The caller's own permissions change with their own role.
        await Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.members.pathKey() }),
          queryClient.invalidateQueries({ queryKey: trpc.permissions.mine.pathKey() }),
        ]);
        onClose();
      },
    }),
  );
  const submit = () =>
    change.mutate({
      user_id: member.user_id,
      role,
      // Untouched, the expiry stays as it is (to the millisecond); emptied, the membership lasts.
      ...(expiry !== initialExpiry && { expires_at: expiry === '' ? null : fromLocalInput(expiry) }),
    });
  const fields = errorView(change.error).fields;
  return (
    <EditorForm
      label={`Edit the membership of ${name}`}
      saving={change}
      loadError={roles.error}
      onSubmit={submit}
      onClose={onClose}
      className="osc-form--inline"
    >
      <SelectField
        label="Role"
        value={role}
        onChange={(event) => setRole(event.target.value)}
        options={roleOptions(roles.data, member.role)}
        error={fields.role}
        autoFocus
      />
      <ExpiryField value={expiry} onChange={setExpiry} error={fields.expires_at} />
    </EditorForm>
  );
}

export interface AddMemberFormProps {
  organizationId: string;
  /** Called after each member added. */
  onAdded?: () => void;
}

/** Adds a user who has a profile, by e-mail, with a role and an optional expiry; nothing without `members:add`. */
export function AddMemberForm({ organizationId, onAdded }: AddMemberFormProps) {
  const { can } = usePermissions(organizationId);
  if (!can('members:add')) return null;
  return <AddMember organizationId={organizationId} onAdded={onAdded} />;
}

function AddMember({ organizationId, onAdded }: AddMemberFormProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const roles = useQuery(trpc.roles.list.queryOptions({ organization_id: organizationId }));
  const [email, setEmail] = useState('');
  // Every organization has the built-in `member` (behaviour §3.2).
  const [role, setRole] = useState('member');
  const [expiry, setExpiry] = useState('');
  const [added, setAdded] = useState<string>();
  const add = useMutation(
    trpc.members.add.mutationOptions({
      ...inOrganization(organizationId),
      onSuccess: async (membership, input) => {
        await queryClient.invalidateQueries({ queryKey: trpc.members.pathKey() });
        setAdded(`${input.email} was added as ${membership.role}.`);
        setEmail('');
        setExpiry('');
        onAdded?.();
      },
    }),
  );
  const submitButton = useFocusAfter(add.status, ['success', 'error']);
  const fields = errorView(add.error).fields;
  return (
    <div className="osc-stack">
      {added !== undefined && add.isSuccess && <Notice tone="success">{added}</Notice>}
      <ErrorNotice error={roles.error} />
      <ErrorNotice error={add.error} />
      <Form
        label="Add a member"
        onSubmit={() => add.mutate({ email, role, ...(expiry !== '' && { expires_at: fromLocalInput(expiry) }) })}
      >
        <TextField
          label="Email"
          type="email"
          value={email}
          onChange={(event) => setEmail(event.target.value)}
          error={fields.email}
          hint="The address of a user who has a profile."
          autoComplete="off"
        />
        <SelectField
          label="Role"
          value={role}
          onChange={(event) => setRole(event.target.value)}
          options={roleOptions(roles.data, role)}
          error={fields.role}
        />
        <div className="osc-row">
          <ExpiryField value={expiry} onChange={setExpiry} error={fields.expires_at} />
        </div>
        <FormActions submit="Add member" busy={add.isPending} submitRef={submitButton} />
      </Form>
    </div>
  );
}
