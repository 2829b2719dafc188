/**
 * The lists' output check (server/platform/rpc/checked-output.ts): it must accept exactly what zod's strict
 * form of the same schema accepts, hand back the very value it checked, and fail as a zod parse
 * does, so that tRPC answers an output that does not match with its output error.
 */
import { initTRPC, TRPCError } from '@trpc/server';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { listOutput, pageOutput } from '../../server/platform/rpc/lists.ts';
import { ROLES } from '../../shared/fields.ts';
import { memberListItemOutput } from '../../shared/members.ts';
import { organizationOutput } from '../../shared/organizations.ts';

const member = {
  user_id: 'u-1',
  first_name: 'Ada',
  last_name: 'Lovelace',
  role: 'admin',
  email: 'a@x.io',
  created_at: '2026-11-24 10:00:00',
};

/** Zod's parse of the same list with unknown fields refused: what the check must agree with. */
const strictMemberList = z.array(memberListItemOutput.strict());

/** Member list items, valid or one field off: wrong type, missing, unknown, or a role that is none. */
const anyValue = fc.oneof(fc.string(), fc.integer(), fc.constant(null), fc.constant(undefined), fc.boolean());
const nearlyMembers = fc.array(
  fc.record(
    {
      user_id: fc.oneof(fc.string(), anyValue),
      first_name: fc.string(),
      last_name: fc.oneof(fc.string(), anyValue),
      role: fc.oneof(fc.constantFrom(...ROLES), fc.string()),
      email: fc.string(),
      created_at: fc.oneof(fc.string(), anyValue),
      expires_at: fc.oneof(fc.constant(null), fc.string(), anyValue),
      extra: fc.option(fc.string(), { nil: undefined }),
    },
    { requiredKeys: ['first_name', 'role', 'email'] },
  ),
  { maxLength: 4 },
);

describe('the lists’ output check', () => {
  const members = listOutput(memberListItemOutput);

  it('hands back the value it checked, not a copy', () => {
    const list = [member, { ...member, user_id: 'u-2', role: 'owner' }];
    expect(members.parse(list)).toBe(list);
    const page = { items: list, nextCursor: null };
    expect(pageOutput(memberListItemOutput).parse(page)).toBe(page);
  });

  it('accepts exactly what zod accepts with unknown fields refused', () => {
    fc.assert(
      fc.property(nearlyMembers, (list) => {
        const accepted = (() => {
          try {
            members.parse(list);
            return true;
          } catch (error) {
            expect(error).toBeInstanceOf(z.ZodError);
            return false;
          }
        })();
        expect(accepted).toBe(strictMemberList.safeParse(list).success);
      }),
      { numRuns: 500 },
    );
  });

  it('names the item and field that failed', () => {
    const error = (() => {
      try {
        members.parse([member, { ...member, role: 'King of the Hill' }]);
      } catch (caught) {
        return caught as z.ZodError;
      }
    })();
    expect(error?.issues.map((issue) => issue.path)).toContainEqual(['1', 'role']);
  });

  it('keeps the zod schema for the OpenAPI document and the client types', () => {
    const organizations = listOutput(organizationOutput);
    expect(z.toJSONSchema(organizations)).toEqual(z.toJSONSchema(z.array(organizationOutput)));
  });

  it('makes tRPC answer an output that does not match with its output error', async () => {
    const t = initTRPC.create();
    const router = t.router({
      list: t.procedure.output(members).query(() => [{ ...member, password_hash: 'secret' }] as never),
    });
    const failure = await t
      .createCallerFactory(router)({})
      .list()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(TRPCError);
    expect((failure as TRPCError).code).toBe('INTERNAL_SERVER_ERROR');
    expect((failure as TRPCError).cause).toBeInstanceOf(z.ZodError);
  });
});
