/** Teams (behaviour §12): `TeamsPanel`, the page of an organization's teams and their members. */
export { TeamsPanel, type TeamsPanelProps } from './TeamsPanel.tsx';
