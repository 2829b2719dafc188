import { describe, expect, it } from 'vitest';
import { assertCanChange, assertCanManageMembers, assertKeepsAnOwner } from '../../server/data/permissions.ts';
import { ROLES, type Role } from '../../shared/schemas.ts';

const codeOf = (action: () => void): string | undefined => {
  try {
    action();
    return undefined;
  } catch (error) {
    return (error as { code: string }).code;
  }
};

describe('membership permission rules (behaviour §3.2)', () => {
  it('lets owners and admins manage members, nobody else', () => {
    expect(codeOf(() => assertCanManageMembers('owner'))).toBeUndefined();
    expect(codeOf(() => assertCanManageMembers('admin'))).toBeUndefined();
    expect(codeOf(() => assertCanManageMembers('member'))).toBe('FORBIDDEN');
    expect(codeOf(() => assertCanManageMembers(undefined))).toBe('FORBIDDEN');
  });

  it('keeps granting ownership and touching owners to owners', () => {
    for (const target of [undefined, ...ROLES]) {
      for (const next of [undefined, ...ROLES]) {
        expect(codeOf(() => assertCanChange('owner', target, next))).toBeUndefined();
        const adminMay = next !== 'owner' && target !== 'owner';
        expect(codeOf(() => assertCanChange('admin', target, next))).toBe(adminMay ? undefined : 'FORBIDDEN');
      }
    }
  });

  it('refuses to leave an organization without an owner', () => {
    const cases: Array<[Role, Role | undefined, number, string | undefined]> = [
      ['owner', 'admin', 1, 'CONFLICT'],
      ['owner', undefined, 1, 'CONFLICT'],
      ['owner', 'owner', 1, undefined],
      ['owner', 'member', 2, undefined],
      ['admin', 'member', 1, undefined],
    ];
    for (const [target, next, owners, expected] of cases) {
      expect(codeOf(() => assertKeepsAnOwner(target, next, owners))).toBe(expected);
    }
  });
});
