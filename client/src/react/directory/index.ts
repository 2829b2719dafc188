/** The directory (behaviour §18): `DirectoryPanel`, connecting an identity provider and what it provisioned. */
export { DirectoryPanel, type DirectoryPanelProps } from './DirectoryPanel.tsx';
