/** An organization's e-mail domains (behaviour §17): added, verified by DNS or by e-mail, enrolled. */
import { z } from 'zod';
import { roleSchema } from './fields.ts';

/** How the people of a verified domain get in: not at all by it, a suggestion, an invitation, or at once. */
export const DOMAIN_ENROLLMENTS = ['manual', 'suggestion', 'automatic_invitation', 'automatic'] as const;
export const domainEnrollmentSchema = z.enum(DOMAIN_ENROLLMENTS);
export type DomainEnrollment = z.infer<typeof domainEnrollmentSchema>;

/** The most characters a DNS name has in text (RFC 1035). */
export const MAX_DOMAIN_LENGTH = 253;

/** A label of a DNS name: letters, digits and hyphens, 1 to 63, no hyphen at either end (IDNs as `xn--`). */
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
/** Two labels or more; the last not all digits, so no IPv4 address passes (an IPv6 one has colons). */
const DOMAIN_NAME = new RegExp(`^(?:${LABEL}\\.)+(?=[a-z0-9-]*[a-z])${LABEL}$`);

export const domainNameSchema = z.string().trim().toLowerCase().max(MAX_DOMAIN_LENGTH).regex(DOMAIN_NAME, {
  error: 'Must be a DNS name of at least two labels (letters, digits, hyphens), not an IP address',
});

export const addDomainInput = z.object({ domain: domainNameSchema });

export const domainPathInput = z.object({ domain_id: z.uuid().toLowerCase() });

/** `default_role`: a role of the organization other than owner, given under the no-escalation rule. */
export const updateDomainInput = domainPathInput.extend({
  enrollment: domainEnrollmentSchema.optional(),
  default_role: roleSchema.optional(),
});

export const domainOutput = z.object({
  domain_id: z.string(),
  domain: z.string(),
  status: z.enum(['pending', 'verified']),
  /** The TXT record to create: at `name`, with the text `value`. */
  verification: z.object({ type: z.literal('dns_txt'), name: z.string(), value: z.string() }),
  enrollment: domainEnrollmentSchema,
  default_role: roleSchema,
  created_at: z.string(),
  verified_at: z.string().nullable(),
});
export type DomainView = z.infer<typeof domainOutput>;
