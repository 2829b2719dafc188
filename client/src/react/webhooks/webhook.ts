import type { RouterOutputs } from '../../index.ts';

export type Webhook = RouterOutputs['webhooks']['list'][number];
export type Delivery = RouterOutputs['webhooks']['deliveriesPage']['items'][number];

/** A signing secret the service has just answered: it is never readable again (behaviour §13). */
export interface ShownSecret {
  url: string;
  secret: string;
  rotated: boolean;
}
