/**
 * The service's wording of the checks zod makes itself (a type, a length, a bound, a format, a
 * choice), for the schemas that give none of their own: a problem names what is wrong and the limit
 * it broke in the words the other fields use ("Must be at most 500 characters", behaviour §5), not
 * zod's ("Too big: expected string to have <=100 characters"). A schema's own message comes first;
 * what this does not word keeps zod's. The server installs it (server/platform/errors.ts).
 */
import type { z } from 'zod';

/** What `Must be …` says of each type zod expects that JSON can send. */
const TYPES: Partial<Record<string, string>> = {
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
  object: 'an object',
  record: 'an object',
  array: 'an array',
  tuple: 'an array',
  null: 'null',
};

/** The formats zod checks itself (the service's own patterns say their own). */
const FORMATS: Partial<Record<string, string>> = {
  uuid: 'Must be a UUID',
  email: 'Must be an e-mail address',
};

type Bound = 'at least' | 'more than' | 'at most' | 'less than' | 'exactly';

/** A length or a count, as the other fields say theirs: of characters, of items, or a number's own. */
function bounded(bound: Bound, origin: string, limit: number | bigint): string {
  const plural = limit === 1 || limit === 1n ? '' : 's';
  if (origin === 'string') return `Must be ${bound} ${limit} character${plural}`;
  if (origin === 'array' || origin === 'set') return `Must have ${bound} ${limit} item${plural}`;
  return `Must be ${bound} ${limit}`;
}

export function serviceProblem(issue: z.core.$ZodRawIssue): string | undefined {
  switch (issue.code) {
    case 'invalid_type': {
      if (issue.input === undefined) return 'Must be given';
      const type = TYPES[issue.expected];
      return type && `Must be ${type}`;
    }
    case 'too_small':
      return bounded(
        issue.exact ? 'exactly' : issue.inclusive === false ? 'more than' : 'at least',
        issue.origin,
        issue.minimum,
      );
    case 'too_big':
      return bounded(
        issue.exact ? 'exactly' : issue.inclusive === false ? 'less than' : 'at most',
        issue.origin,
        issue.maximum,
      );
    case 'invalid_format':
      return FORMATS[issue.format];
    case 'invalid_value':
      return issue.values.length === 1
        ? `Must be ${JSON.stringify(issue.values[0])}`
        : `Must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    default:
      return undefined;
  }
}
