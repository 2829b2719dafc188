/** The one definition of white space (behaviour §4.4) against Unicode's, and trimming with it. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { trimWhiteSpace, WHITE_SPACE_RANGES } from '../../shared/text.ts';

const UNICODE_WHITE_SPACE = /^\p{White_Space}$/u;

describe('white space', () => {
  it("is exactly Unicode's White_Space property, over every code point", () => {
    const listed = new Set<number>();
    for (const [first, last] of WHITE_SPACE_RANGES) for (let code = first; code <= last; code++) listed.add(code);
    const unicode: number[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (UNICODE_WHITE_SPACE.test(String.fromCodePoint(code))) unicode.push(code);
    }
    expect([...listed].sort((a, b) => a - b)).toEqual(unicode);
  });

  it('is trimmed from both ends and nowhere else, as a reference trim by the property would', () => {
    const whiteSpace = fc.constantFrom(...WHITE_SPACE_RANGES.map(([first]) => String.fromCharCode(first)), '\u2005');
    const text = fc.array(fc.oneof(whiteSpace, fc.string({ unit: 'binary', maxLength: 3 })), { maxLength: 12 });
    fc.assert(
      fc.property(text, (parts) => {
        const value = parts.join('');
        const reference = value.replace(/^\p{White_Space}+/u, '').replace(/\p{White_Space}+$/u, '');
        expect(trimWhiteSpace(value)).toBe(reference);
      }),
    );
  });
});
