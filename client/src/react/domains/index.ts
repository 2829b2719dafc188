/**
 * Verified domains (behaviour §17): `DomainsPanel`, the page of an organization's e-mail domains,
 * their verification by a DNS TXT record, and how their people join.
 */
export { DomainsPanel, type DomainsPanelProps } from './DomainsPanel.tsx';
