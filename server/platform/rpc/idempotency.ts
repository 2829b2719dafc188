/**
 * The Idempotency-Key header of a change request (behaviour §10), read for the change procedures.
 */
import { idempotencyKeySchema } from '../../../shared/fields.ts';
import { fingerprint, KEYS_KEPT_MS, type IdempotentRequest } from '../idempotency.ts';
import { badRequest } from '../errors.ts';
import type { Context } from './context.ts';

/**
 * The Idempotency-Key `header` of a change that carries one: validated here, claimed and answered by
 * the change's transaction (platform/idempotency.ts). Two requests are the same one when they name the
 * same procedure (REST method and path), organization and body.
 */
export async function idempotentRequest(
  ctx: Context,
  header: string | string[],
  callerId: string,
  path: string,
  getRawInput: () => Promise<unknown>,
): Promise<IdempotentRequest> {
  const key = idempotencyKeySchema.safeParse(header);
  if (!key.success) {
    throw badRequest('Invalid Idempotency-Key header', [
      { field: 'Idempotency-Key', problem: 'Must be one key of 1 to 255 printable ASCII characters' },
    ]);
  }
  const organizationId =
    typeof ctx.organizationIdHeader === 'string' ? ctx.organizationIdHeader.toLowerCase() : undefined;
  return {
    callerId,
    key: key.data,
    fingerprint: fingerprint({ procedure: path, organizationId, body: await getRawInput() }),
    // As earlier versions, which claimed keys apart from the change: twice their processing limit.
    staleAfterMs: 2 * (2 * ctx.settings.DB_TIMEOUT_MS + 1000),
    keepForMs: KEYS_KEPT_MS,
  };
}
