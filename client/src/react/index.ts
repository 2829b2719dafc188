/**
 * The client package's `react` entry (`@org-service/client/react`): the console's building blocks
 * as typed React components for a host application, over the same typed client. React 19 and
 * TanStack Query 5 are peer dependencies; the styles are `@org-service/client/react/styles.css`.
 *
 *   import { OrgServiceProvider, MembersTable } from '@org-service/client/react';
 *   import '@org-service/client/react/styles.css';
 *
 * Every component reads and changes the service through the provider's client, shows only what the
 * caller's permissions allow, and shows the service's messages next to the fields they name. The
 * design system is in `ui/`, one part a file; each domain's components are in a folder of their own.
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
  CopyButton,
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
  SecretNotice,
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
} from './ui/index.ts';
export { ProfileForm, useProfile, type ProfileFormProps } from './profile/index.ts';
export {
  CreateOrganizationForm,
  OrganizationSettings,
  OrganizationSwitcher,
  useOrganizations,
  type CreateOrganizationFormProps,
  type OrganizationSettingsProps,
  type OrganizationSwitcherProps,
} from './organizations/index.ts';
export {
  InvitationsTable,
  InviteForm,
  MyInvitations,
  type InvitationsTableProps,
  type InviteFormProps,
} from './invitations/index.ts';
export {
  AddMemberForm,
  MemberPicker,
  MemberProfile,
  MembersTable,
  type AddMemberFormProps,
  type Member,
  type MemberPickerProps,
  type MemberProfileProps,
  type MembersTableProps,
} from './members/index.ts';
export { RoleEditor, type RoleEditorProps } from './roles/index.ts';
export { TeamsPanel, type TeamsPanelProps } from './teams/index.ts';
export { WebhooksPanel, type WebhooksPanelProps } from './webhooks/index.ts';
export { ApiKeysPanel, type ApiKeysPanelProps } from './api-keys/index.ts';
export { EventsLog, type EventsLogProps } from './events/index.ts';
export { DomainsPanel, type DomainsPanelProps } from './domains/index.ts';
export {
  JoinRequestsPanel,
  MyJoinRequests,
  SuggestedOrganizations,
  type JoinRequestsPanelProps,
} from './joining/index.ts';
export { DirectoryPanel, type DirectoryPanelProps } from './directory/index.ts';
