/** The caller's user record (behaviour §4.1): POST, GET and PUT /users. */
import { z } from 'zod';
import { emailSchema, isoTimestampSchema } from './fields.ts';
import { nameText } from './text.ts';

/** A first or last name (behaviour §4.4). */
const personNameSchema = nameText(100);

export const createUserInput = z.object({
  first_name: personNameSchema,
  last_name: personNameSchema,
  email: emailSchema,
});

export const updateUserInput = z
  .object({ first_name: personNameSchema.optional(), last_name: personNameSchema.optional() })
  .refine((body) => body.first_name !== undefined || body.last_name !== undefined, {
    message: 'Give first_name, last_name or both',
  });

export const userOutput = z.object({
  id: z.string(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  created_at: isoTimestampSchema,
  updated_at: isoTimestampSchema,
});
export type User = z.infer<typeof userOutput>;
