import type { RouterOutputs } from '../../index.ts';

export type OrganizationDetails = RouterOutputs['organizations']['get'];
