import type { RouterOutputs } from '../../index.ts';
import type { Option } from '../ui/index.ts';

export type Domain = RouterOutputs['domains']['list'][number];
export type Enrollment = Domain['enrollment'];

/** What each enrollment does for the domain's people (behaviour §17); the record names every one the service allows. */
const ENROLLMENT_LABELS: Record<Enrollment, string> = {
  manual: 'Manual: no one joins by it',
  suggestion: 'Suggestion: they ask to join',
  automatic_invitation: 'Invitation: one waits for them',
  automatic: 'Automatic: they join at once',
};

export const ENROLLMENT_OPTIONS: Option[] = Object.entries(ENROLLMENT_LABELS).map(([value, label]) => ({
  value,
  label,
}));
