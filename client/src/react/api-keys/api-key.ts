import type { RouterOutputs } from '../../index.ts';

export type ApiKey = RouterOutputs['apiKeys']['list'][number];
export type CreatedApiKey = RouterOutputs['apiKeys']['create'];
