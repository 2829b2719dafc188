import { Badge, ConfirmButton, Table, Time } from '../ui/index.ts';
import type { ApiKey } from './api-key.ts';

/** The keys, a row each with its last use and a revoke button; never a secret (the service keeps none). */
export function ApiKeysTable({
  keys,
  revoking,
  onRevoke,
}: {
  keys: readonly ApiKey[];
  /** Whether the key's revocation is under way. */
  revoking: (key: ApiKey) => boolean;
  onRevoke: (key: ApiKey) => void;
}) {
  return (
    <Table label="API keys" columns={['Name', 'Key', 'Role', 'Last used', 'Expires', 'Created']} actions>
      {keys.map((key) => (
        <tr key={key.key_id}>
          <th scope="row">{key.name}</th>
          <td data-label="Key" className="osc-mono">
            {key.prefix}…
          </td>
          <td data-label="Role">
            <Badge>{key.role}</Badge>
          </td>
          <td data-label="Last used">
            {key.last_used_at ? <Time value={key.last_used_at} /> : <span className="osc-muted">Never</span>}
          </td>
          <td data-label="Expires">
            {key.expires_at ? <Time value={key.expires_at} /> : <span className="osc-muted">Never</span>}
          </td>
          <td data-label="Created">
            <Time value={key.created_at} />
          </td>
          <td className="osc-table__actions">
            <ConfirmButton
              confirmLabel={`Revoke the key ${key.name}? Whatever uses it is refused from now on.`}
              busy={revoking(key)}
              onConfirm={() => onRevoke(key)}
            >
              Revoke
            </ConfirmButton>
          </td>
        </tr>
      ))}
    </Table>
  );
}
