/** A person's own data (behaviour §15): GET /users/export and DELETE /users. */
import { z } from 'zod';
import { auditEventOutput } from './events.ts';
import { isoTimestampSchema, roleSchema } from './fields.ts';
import { joinRequestStatusSchema } from './joining.ts';
import { userOutput } from './users.ts';

/** The events an export lists at most, the newest ones; `events_truncated` says when there were more. */
export const MAX_EXPORTED_EVENTS = 1000;

export const accountExportOutput = z.object({
  profile: userOutput,
  memberships: z.array(
    z.object({
      organization_id: z.string(),
      organization_name: z.string(),
      organization_slug: z.string(),
      role: roleSchema,
      created_at: isoTimestampSchema,
      expires_at: isoTimestampSchema.nullable(),
      teams: z.array(z.object({ team_id: z.string(), name: z.string(), added_at: isoTimestampSchema })),
    }),
  ),
  pending_invitations: z.array(
    z.object({
      invitation_id: z.string(),
      organization_id: z.string(),
      organization_name: z.string(),
      role: roleSchema,
      created_at: isoTimestampSchema,
      expires_at: isoTimestampSchema,
    }),
  ),
  join_requests: z.array(
    z.object({
      request_id: z.string(),
      organization_id: z.string(),
      organization_name: z.string(),
      role: roleSchema,
      status: joinRequestStatusSchema,
      created_at: isoTimestampSchema,
    }),
  ),
  /** Newest first, at most MAX_EXPORTED_EVENTS. */
  events: z.array(auditEventOutput),
  events_truncated: z.boolean(),
});
export type AccountExport = z.infer<typeof accountExportOutput>;
