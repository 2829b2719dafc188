/**
 * The client package's `react` entry (`@org-service/client/react`): the console's building blocks
 * as typed React components for a host application, over the same typed client. React 19 and
 * TanStack Query 5 are peer dependencies; the styles are `@org-service/client/react/styles.css`.
 *
 *   import { OrgServiceProvider, MembersTable } from '@org-service/client/react';
 *   import '@org-service/client/react/styles.css';
 *
 * Every component reads and changes the service through the provider's client, shows only what the
 * caller's permissions allow, and shows the service's messages next to the fields they name.
 */
export { OrgServiceProvider, inOrganization, type OrgServiceProviderProps } from './service.tsx';
export { usePermissions, type Permissions } from './permissions.ts';
export { errorView, isSignedOut, type ErrorView } from './errors.ts';
export {
  Badge,
  Busy,
  Button,
  Checkbox,
  ConfirmButton,
  draftFields,
  EditableRow,
  EditorForm,
  EmptyState,
  ErrorNotice,
  FocusedNotice,
  Form,
  FormActions,
  Notice,
  QueryList,
  Section,
  SelectField,
  Table,
  TextAreaField,
  TextField,
  Time,
  keepFocus,
  useFocusAfter,
  useRowEditor,
  useRowPanel,
  type ButtonProps,
  type CallState,
  type Option,
  type RowEditor,
} from './ui.tsx';
export { ProfileForm, useProfile, type ProfileFormProps } from './profile.tsx';
export {
  CreateOrganizationForm,
  OrganizationSettings,
  OrganizationSwitcher,
  useOrganizations,
  type CreateOrganizationFormProps,
  type OrganizationSettingsProps,
  type OrganizationSwitcherProps,
} from './organizations.tsx';
export {
  InvitationsTable,
  InviteForm,
  MyInvitations,
  type InvitationsTableProps,
  type InviteFormProps,
} from './invitations.tsx';
export { AddMemberForm, MembersTable, type AddMemberFormProps, type MembersTableProps } from './members.tsx';
export { RoleEditor, type RoleEditorProps } from './roles.tsx';
export { TeamsPanel, type TeamsPanelProps } from './teams.tsx';
export { WebhooksPanel, type WebhooksPanelProps } from './webhooks.tsx';
export { EventsLog, type EventsLogProps } from './events.tsx';
