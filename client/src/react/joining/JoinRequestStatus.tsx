import type { ComponentProps } from 'react';
import { Badge } from '../ui/index.ts';
import type { JoinRequest } from './join-request.ts';

const STATUS_TONES: Record<JoinRequest['status'], ComponentProps<typeof Badge>['tone']> = {
  pending: 'warning',
  approved: 'success',
  rejected: 'danger',
  withdrawn: 'neutral',
};

export function JoinRequestStatus({ status }: { status: JoinRequest['status'] }) {
  return <Badge tone={STATUS_TONES[status]}>{status}</Badge>;
}
