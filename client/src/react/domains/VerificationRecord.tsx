import { CopyButton } from '../ui/index.ts';
import type { Domain } from './domain.ts';

/** The TXT record that verifies a pending domain: its name and its value, each with a copy button. */
export function VerificationRecord({ domain }: { domain: Domain }) {
  const { name, value } = domain.verification;
  return (
    <div className="osc-stack">
      <p>
        Create this TXT record in the DNS of {domain.domain}, then verify. Records can take a while to reach every
        resolver.
      </p>
      <dl className="osc-record">
        <dt>Name</dt>
        <dd>
          <span className="osc-secret">{name}</span>
          <CopyButton text={name}>Copy name</CopyButton>
        </dd>
        <dt>Value</dt>
        <dd>
          <span className="osc-secret">{value}</span>
          <CopyButton text={value}>Copy value</CopyButton>
        </dd>
      </dl>
    </div>
  );
}
