/** Joining an organization by a verified work e-mail, and join requests (behaviour §17). */
import { z } from 'zod';
import { roleSchema } from './fields.ts';
import { domainEnrollmentSchema } from './domains.ts';

export const JOIN_REQUEST_STATUSES = ['pending', 'approved', 'rejected', 'withdrawn'] as const;
export const joinRequestStatusSchema = z.enum(JOIN_REQUEST_STATUSES);

export const suggestionOutput = z.object({
  organization_id: z.string(),
  organization_name: z.string(),
  slug: z.string(),
  enrollment: domainEnrollmentSchema,
});
export type SuggestionView = z.infer<typeof suggestionOutput>;

export const joinRequestPathInput = z.object({ request_id: z.uuid().toLowerCase() });

/** `role`: what the membership gets, else the role the domain offered when the request was made. */
export const approveJoinRequestInput = joinRequestPathInput.extend({ role: roleSchema.optional() });

/** A request as the organization sees it. */
export const joinRequestOutput = z.object({
  request_id: z.string(),
  user_id: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  status: joinRequestStatusSchema,
  created_at: z.string(),
});
export type JoinRequestView = z.infer<typeof joinRequestOutput>;

/** A request as its requester sees it. */
export const myJoinRequestOutput = z.object({
  request_id: z.string(),
  organization_id: z.string(),
  organization_name: z.string(),
  status: joinRequestStatusSchema,
  created_at: z.string(),
});
export type MyJoinRequestView = z.infer<typeof myJoinRequestOutput>;

/** A pending request, as `POST .../join` answers when the domain's enrollment is `suggestion` (202). */
export const joinOutput = z.object({
  organization_id: z.string(),
  user_id: z.string(),
  /** The membership's role when joined at once; the role the request offers otherwise. */
  role: roleSchema,
  /** `member`: joined (201); `pending`: a join request waits for approval (202). */
  status: z.enum(['member', 'pending']),
  /** The join request's id when one was made. */
  request_id: z.string().nullable(),
});
