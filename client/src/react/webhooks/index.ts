/** Webhooks (behaviour §13): `WebhooksPanel`, the page of an organization's endpoints and their deliveries. */
export { WebhooksPanel, type WebhooksPanelProps } from './WebhooksPanel.tsx';
