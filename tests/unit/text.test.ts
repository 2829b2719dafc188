/** The one definition of white space (behaviour §4.4) against Unicode's, and trimming with it. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { defaultIgnorableRanges } from '../../server/http/openapi.ts';
import { teamNameKey } from '../../shared/teams.ts';
import { comparableName, trimWhiteSpace, WHITE_SPACE_RANGES } from '../../shared/text.ts';

const DEFAULT_IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;

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

describe('the key that makes team names unique (behaviour §4.4)', () => {
  it('is one for names that differ in letter case, width, composition or invisible characters only', () => {
    const alike = [
      [
        'Managers',
        'MANAGERS',
        'Mana\u200bgers',
        'Ｍａｎａｇｅｒｓ',
        '\u00adManagers\u2060',
        'Man\ufeffagers',
        '\u200b Managers',
      ],
      ['Café', 'Cafe\u0301', 'CAFÉ', 'ＣＡＦＥ\u0301'],
      ['Straße', 'STRASSE', 'strasse', 'STRAẞE', 'straẞe'],
      ['ΟΔΟΣ', 'οδος', 'οδοσ'],
      ['Işık', 'IŞIK', 'işik'],
      ['ﬁnance', 'finance', 'FINANCE'],
    ];
    for (const names of alike) expect(new Set(names.map(teamNameKey)), names.join(' ')).toHaveLength(1);
  });

  it('tells apart names that differ in more than that', () => {
    const different = ['Managers', 'Manager', 'Managers 2', 'Cafe', 'Café', 'Sup port', 'Support', 'Supp0rt'];
    expect(new Set(different.map(teamNameKey)).size).toBe(different.length);
  });

  it('folds every code point as its capital and its lower case, once for all', () => {
    const unlike: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const character = String.fromCodePoint(code);
      const folded = comparableName(character);
      for (const other of [character.toUpperCase(), character.toLowerCase(), folded]) {
        if (comparableName(other) !== folded) unlike.push(code.toString(16));
      }
    }
    expect(unlike).toEqual([]);
  });

  it('folds only "ẞ" otherwise than the upper then lower case of earlier releases, over every code point', () => {
    // So Migration20261201140000_case_folded_team_names makes again the keys of the names holding
    // it and of no other: case is mapped character by character, but for the sigma's context,
    // which only chooses between "ς" and "σ".
    const earlier = (name: string) =>
      trimWhiteSpace(
        name.normalize('NFKC').replace(DEFAULT_IGNORABLE, '').toUpperCase().toLowerCase().normalize('NFKC'),
      );
    const changed: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const character = String.fromCodePoint(code);
      if (comparableName(character) !== earlier(character)) changed.push(code.toString(16));
    }
    expect(changed).toEqual(['1e9e']);
  });
});

describe("the document's default-ignorable code points", () => {
  it("are exactly Unicode's Default_Ignorable_Code_Point property as the service tests it, over every code point", () => {
    const listed = defaultIgnorableRanges().flatMap(([first, last]) =>
      Array.from({ length: last - first + 1 }, (_, index) => first + index),
    );
    const property = /^\p{Default_Ignorable_Code_Point}$/u;
    const unicode: number[] = [];
    for (let code = 0; code <= 0x10ffff; code++) if (property.test(String.fromCodePoint(code))) unicode.push(code);
    expect(listed).toEqual(unicode);
  });
});
