/**
 * Webhooks (behaviour §13): endpoints an organization's events are delivered to, signed as the
 * Standard Webhooks specification says, and the log of those deliveries.
 */
import { z } from 'zod';
import { EVENT_TYPES } from './events.ts';
import { descriptionText, noProblem, textProblem } from './text.ts';

/** The most endpoints one organization may have. */
export const MAX_WEBHOOKS = 20;
export const MAX_WEBHOOK_URL = 2048;
export const MAX_WEBHOOK_DESCRIPTION = 500;
export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/**
 * The type of the synthetic event a caller sends one endpoint to try it (behaviour §13): not an
 * event of the log, so no endpoint subscribes to it and no event list shows it.
 */
export const TEST_EVENT_TYPE = 'webhook.test';

export const webhookIdSchema = z.uuid().toLowerCase();
export const deliveryIdSchema = z.uuid().toLowerCase();

/**
 * The URL's form; where it leads (https only, no credentials, no private address) is the service's
 * to check, at creation and again at every delivery (400 on `url`).
 */
export const webhookUrlSchema = z
  .url({
    protocol: /^https?$/,
    // Only for the URL's form: an error for the whole schema would also stand for its length's.
    error: (issue) => (issue.code === 'invalid_format' ? 'Must be an http(s) URL' : undefined),
  })
  .max(MAX_WEBHOOK_URL, `Must be at most ${MAX_WEBHOOK_URL} characters`)
  // The URL parser would percent-encode a control character and store a lone surrogate as U+FFFD:
  // text rules first (behaviour §4.4), so that what is kept is what was sent.
  .refine(...noProblem((url) => textProblem(url)))
  // The protocol check is zod's own, which the document's `format: uri` does not say.
  .meta({ override: { pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' } });

/** `["*"]` (every type, those added later too) or 1 or more distinct event types. */
export const webhookEventTypesSchema = z
  .union(
    [
      z.tuple([z.literal('*')]),
      z.array(z.enum(EVENT_TYPES)).min(1, 'Must name at least 1 event type, or be ["*"]').max(EVENT_TYPES.length),
    ],
    {
      error: `Must be ["*"] for every event type, or an array of 1 to ${EVENT_TYPES.length} event types (${EVENT_TYPES[0]}, …)`,
    },
  )
  .refine((types) => new Set(types).size === types.length, { error: 'Names an event type more than once' })
  .meta({ uniqueItems: true });

export const webhookDescriptionSchema = descriptionText(MAX_WEBHOOK_DESCRIPTION);

export const createWebhookInput = z.object({
  url: webhookUrlSchema,
  event_types: webhookEventTypesSchema,
  description: webhookDescriptionSchema.default(''),
});

export const webhookPathInput = z.object({ webhook_id: webhookIdSchema });

export const updateWebhookInput = z
  .object({
    webhook_id: webhookIdSchema,
    url: webhookUrlSchema.optional(),
    event_types: webhookEventTypesSchema.optional(),
    description: webhookDescriptionSchema.optional(),
    enabled: z.boolean().optional(),
  })
  .refine(
    (input) =>
      input.url !== undefined ||
      input.event_types !== undefined ||
      input.description !== undefined ||
      input.enabled !== undefined,
    { error: 'Give url, event_types, description, enabled, or any of them together' },
  );

export const deliveryPathInput = z.object({ webhook_id: webhookIdSchema, delivery_id: deliveryIdSchema });

export const webhookOutput = z.object({
  webhook_id: z.string(),
  organization_id: z.string(),
  url: z.string(),
  event_types: z.array(z.string()),
  description: z.string(),
  enabled: z.boolean(),
  /** Why the service disabled the endpoint; null when it is enabled or was disabled by a caller. */
  disabled_reason: z.string().nullable(),
  /** ISO 8601 UTC with milliseconds. */
  created_at: z.string(),
  updated_at: z.string(),
});
export type WebhookView = z.infer<typeof webhookOutput>;

/** An endpoint as its creation answers it: with its signing secret, shown only here and on rotation. */
export const createdWebhookOutput = webhookOutput.extend({ secret: z.string() });

export const secretOutput = z.object({ secret: z.string() });

/** The body a delivery POSTs, the same at every attempt: the event's type, its `created_at`, and the event itself. */
export const deliveryPayload = z.object({
  type: z.string(),
  timestamp: z.string(),
  data: z.record(z.string(), z.unknown()),
});
export type DeliveryPayload = z.infer<typeof deliveryPayload>;

export const deliveryOutput = z.object({
  delivery_id: z.string(),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(DELIVERY_STATUSES),
  attempts: z.number().int(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  /**
   * Up to 1 KiB of the body the last attempt was answered with, successful or not (cut between
   * characters); null when it had no answer, or before the first attempt.
   */
  response_body: z.string().nullable(),
  /** When the next attempt is due (or, while one is under way, when its claim lapses); null once done. */
  next_attempt_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  /** What is sent (no secret, no signature: those are in the headers); null once its event is no longer in the log. */
  payload: deliveryPayload.nullable(),
});
export type DeliveryView = z.infer<typeof deliveryOutput>;
