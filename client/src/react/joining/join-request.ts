import type { RouterOutputs } from '../../index.ts';

export type JoinRequest = RouterOutputs['joining']['requests'][number];
export type MyJoinRequest = RouterOutputs['joining']['mine'][number];
export type Suggestion = RouterOutputs['joining']['suggestions'][number];
