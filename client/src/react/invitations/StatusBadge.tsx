import type { ComponentProps } from 'react';
import type { RouterOutputs } from '../../index.ts';
import { Badge } from '../ui/index.ts';

type Status = RouterOutputs['invitations']['list'][number]['status'];

const STATUS_TONES: Record<Status, ComponentProps<typeof Badge>['tone']> = {
  pending: 'warning',
  accepted: 'success',
  declined: 'neutral',
  revoked: 'danger',
};

export function StatusBadge({ status }: { status: Status }) {
  return <Badge tone={STATUS_TONES[status]}>{status}</Badge>;
}
