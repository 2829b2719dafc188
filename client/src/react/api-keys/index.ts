/** API keys (behaviour §16): `ApiKeysPanel`, the page of an organization's keys. */
export { ApiKeysPanel, type ApiKeysPanelProps } from './ApiKeysPanel.tsx';
