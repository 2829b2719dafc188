/** An organization's e-mail domains (behaviour §17): added, verified by DNS or by e-mail, enrolled. */
import { z } from 'zod';
import { roleOtherThanOwnerSchema, roleSchema } from './fields.ts';

/** How the people of a verified domain get in: not at all by it, a suggestion, an invitation, or at once. */
export const DOMAIN_ENROLLMENTS = ['manual', 'suggestion', 'automatic_invitation', 'automatic'] as const;
export const domainEnrollmentSchema = z.enum(DOMAIN_ENROLLMENTS);
export type DomainEnrollment = z.infer<typeof domainEnrollmentSchema>;

/** The most characters a DNS name has in text (RFC 1035). */
export const MAX_DOMAIN_LENGTH = 253;

/** A label of a DNS name: letters, digits and hyphens, 1 to 63, no hyphen at either end (IDNs as `xn--`). */
const LABEL = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
const CASELESS_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
/** Tabs, line breaks and spaces: the white space a sent name has around it, in every engine's terms. */
const SPACE = '[\\x09-\\x0d\\x20]';
/** Two labels or more (no lookahead: the OpenAPI document's patterns compile in RE2 too). */
const DOMAIN_NAME = new RegExp(`^(?:${LABEL}\\.)+${LABEL}$`);
/** A last label all digits: an IPv4 address, or like one (an IPv6 address has colons, which no label has). */
const NUMERIC_LAST_LABEL = /\.[0-9]+$/;

const DOMAIN_PROBLEM = 'Must be a DNS name of at least two labels (letters, digits, hyphens), not an IP address';

export const domainNameSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(MAX_DOMAIN_LENGTH, { error: `Must be at most ${MAX_DOMAIN_LENGTH} characters`, abort: true })
  .regex(DOMAIN_NAME, { error: DOMAIN_PROBLEM })
  .refine((name) => !NUMERIC_LAST_LABEL.test(name), { error: DOMAIN_PROBLEM })
  // What is sent, before the trim and lower-casing: letters of either case, white space around.
  .meta({
    override: {
      pattern: `^${SPACE}*(?:${CASELESS_LABEL}\\.)+${CASELESS_LABEL}${SPACE}*$`,
      not: { pattern: `\\.[0-9]+${SPACE}*$` },
    },
  });

export const addDomainInput = z.object({ domain: domainNameSchema });

export const domainPathInput = z.object({ domain_id: z.uuid().toLowerCase() });

/** `default_role`: a role of the organization other than owner, given under the no-escalation rule. */
export const updateDomainInput = domainPathInput.extend({
  enrollment: domainEnrollmentSchema.optional(),
  default_role: roleOtherThanOwnerSchema.optional(),
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
