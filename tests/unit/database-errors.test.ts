/** How a database failure is told to callers (behaviour §10): a 503 whose message says which. */
import { TRPCError } from '@trpc/server';
import { describe, expect, it } from 'vitest';
import { httpStatusOf, publicErrorBody } from '../../server/platform/errors.ts';

/** A driver error as mysql2 raises it, inside tRPC's error as a procedure's failure reaches the transport. */
const failure = (message: string, fields: object) =>
  new TRPCError({ code: 'INTERNAL_SERVER_ERROR', cause: Object.assign(new Error(message), fields) });

describe('database failures as answers', () => {
  it('says the database did not answer in time when a statement outlasted its bound', () => {
    for (const errno of [1969, 3024]) {
      const error = failure('Query execution was interrupted (max_statement_time exceeded)', { errno });
      expect(httpStatusOf(error)).toBe(503);
      expect(publicErrorBody(error)).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: 'The database did not answer in time, try again later',
      });
    }
  });

  it('says the database is unavailable when it cannot be reached', () => {
    const error = failure('connect ECONNREFUSED 127.0.0.1:3306', { code: 'ECONNREFUSED' });
    expect(httpStatusOf(error)).toBe(503);
    expect(publicErrorBody(error)).toEqual({
      code: 'SERVICE_UNAVAILABLE',
      message: 'The database is unavailable, try again later',
    });
  });

  it('tells nothing of another failure: a 500 without the driver message', () => {
    const error = failure("Table 'orgs.users' doesn't exist", { errno: 1146 });
    expect(httpStatusOf(error)).toBe(500);
    expect(publicErrorBody(error)).toEqual({ code: 'INTERNAL_SERVER_ERROR', message: 'Internal server error' });
  });
});
