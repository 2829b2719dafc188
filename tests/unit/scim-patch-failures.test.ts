/**
 * What scim-patch throws other than its own ScimError (a TypeError, when a value does not fit where
 * it goes) is a 400 invalidValue naming the path, never a 500 nor the library's words (behaviour
 * §18: no body or path is a 500). The HTTP tests cannot reach it: the operations the service makes
 * of a request refuse such values first (tests/scim-patch.test.ts); these are handed over as they are.
 */
import { expect, it } from 'vitest';
import { applyPatch } from '../../server/modules/scim/patch.ts';
import { ScimProblem } from '../../server/modules/scim/scim-errors.ts';

it('a failure inside scim-patch is 400 invalidValue, naming the path and nothing of the failure', () => {
  const user = { schemas: [], userName: 'ann@example.com', name: { givenName: 'Ann' } };
  let thrown: unknown;
  try {
    applyPatch(user, [
      { op: 'replace', path: 'name', value: 'not an object' },
      { op: 'replace', path: 'name.givenName', value: 'Bea' },
    ]);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ScimProblem);
  expect(thrown).toMatchObject({
    code: 'BAD_REQUEST',
    scimType: 'invalidValue',
    message: 'name.givenName: the value does not fit there',
  });
});
