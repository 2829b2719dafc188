import { Badge, Table, Time } from '../ui/index.ts';
import type { OrganizationDetails } from './organization.ts';

export function OrganizationDetailsTable({ details }: { details: OrganizationDetails }) {
  return (
    <Table label="Organization details">
      <tr>
        <th scope="row">Name</th>
        <td className="osc-wrap">{details.organization_name}</td>
      </tr>
      <tr>
        <th scope="row">Description</th>
        <td className="osc-pre-wrap">
          {details.organization_description || <span className="osc-muted">No description</span>}
        </td>
      </tr>
      <tr>
        <th scope="row">Your role</th>
        <td>
          <Badge tone="accent">{details.role}</Badge>
        </td>
      </tr>
      <tr>
        <th scope="row">Members</th>
        <td>{details.member_count}</td>
      </tr>
      <tr>
        <th scope="row">Member limit</th>
        <td>{details.max_members ?? <span className="osc-muted">No limit</span>}</td>
      </tr>
      <tr>
        <th scope="row">Created</th>
        <td>
          <Time value={details.created_at} />
        </td>
      </tr>
      <tr>
        <th scope="row">Last changed</th>
        <td>
          <Time value={details.updated_at} />
        </td>
      </tr>
      <tr>
        <th scope="row">Id</th>
        <td className="osc-mono">{details.organization_id}</td>
      </tr>
    </Table>
  );
}
