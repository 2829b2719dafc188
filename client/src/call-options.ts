/**
 * What one call may say besides its input: the organization it acts on, an idempotency key, a
 * signal. They travel to the links in tRPC's per-operation `context`, which tRPC passes along
 * untouched; typed options rather than a bare `context`, so that a misspelt organization is a
 * compile error instead of a call on the default organization.
 */
import type { Operation, TRPCProcedureOptions } from '@trpc/client';

export interface CallOptions {
  /** Cancels the call: it rejects at once, the rest of its batch is still answered. */
  signal?: AbortSignal;
  /**
   * The organization this call acts on (its `organization_id` header), in place of the client's
   * `organizationId`. Calls for different organizations never share a batch.
   */
  organizationId?: string;
}

export interface MutationOptions extends CallOptions {
  /**
   * Sent as the `Idempotency-Key` header, the call alone in its request. Send the same key again
   * (with the same input and organization) after a failure whose outcome you do not know: the
   * change is made at most once, and a repeat gets the first answer.
   */
  idempotencyKey?: string;
  /** Called, before the call resolves, when the answer is the stored one of an earlier request with the key. */
  onReplay?: () => void;
}

/** The call options as they travel in an operation's context. */
export type CallContext = Omit<MutationOptions, 'signal'>;

/** tRPC's options for a call made with ours. */
export function toProcedureOptions(options: MutationOptions | undefined): TRPCProcedureOptions | undefined {
  if (!options) return undefined;
  const { signal, ...context } = options;
  return { signal, context: { ...context } };
}

export const callContext = (operation: Operation): CallContext => operation.context;
