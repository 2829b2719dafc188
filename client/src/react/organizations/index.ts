/**
 * Organizations (behaviour §4.2, §8): the caller's (`useOrganizations`, `OrganizationSwitcher`),
 * creating one, and one organization's settings.
 */
export { CreateOrganizationForm, type CreateOrganizationFormProps } from './CreateOrganizationForm.tsx';
export { OrganizationSettings, type OrganizationSettingsProps } from './OrganizationSettings.tsx';
export { OrganizationSwitcher, type OrganizationSwitcherProps } from './OrganizationSwitcher.tsx';
export { useOrganizations } from './useOrganizations.ts';
