import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { foldText, organizationWords, personWords, prefixEnd, searchWords } from '../../shared/search.ts';

describe('the words of the directory search (behaviour §15)', () => {
  it("split a person's names on white space and their e-mail address on @ . _ - +, keeping the whole address", () => {
    expect(personWords('Anna Maria', 'Berg', 'x.annika+tag@corp-mail.example').sort()).toEqual(
      [
        'anna',
        'maria',
        'berg',
        'x',
        'annika',
        'tag',
        'corp',
        'mail',
        'example',
        'x.annika+tag@corp-mail.example',
      ].sort(),
    );
  });

  it('fold case and accents alike in words and searches', () => {
    expect(personWords('Ånna', 'BÉRG', 'ÖRJAN@Example.COM')).toEqual(
      expect.arrayContaining(['anna', 'berg', 'orjan', 'example', 'com', 'orjan@example.com']),
    );
    expect(searchWords('  ÅNN   bérg ')).toEqual(['ann', 'berg']);
    expect(foldText('İstanbul')).toBe('istanbul');
    expect(foldText('ﬁne Ǆ')).toBe('fine dz');
  });

  it("fold case as Unicode's full case folding does: ß is ss, Σ σ ς one letter, ſ is s", () => {
    for (const text of ['Straße', 'STRASSE', 'STRAẞE', 'strasse', 'ſtraſſe']) expect(foldText(text)).toBe('strasse');
    expect(searchWords('ΚΑΣ')).toEqual(['κασ']);
    expect(personWords('Κασσάνδρα', 'Παπαδοπούλου', 'k@example.com')).toEqual(
      expect.arrayContaining(['κασσανδρα', 'παπαδοπουλου']),
    );
    expect(foldText('ΟΔΥΣΣΕΥΣ Οδυσσεύς')).toBe('οδυσσευσ οδυσσευσ');
    // The dotless i folds as its capital I, so "IŞIK" finds "Işık".
    expect(foldText('IŞIK Işık')).toBe('isik isik');
    // The iota subscript is an iota to case folding (ᾳ's capital is ΑΙ).
    expect(foldText('ᾳ ᾼ ΑΙ')).toBe('αι αι αι');
    // Cherokee: lower and capital letters alike.
    expect(foldText('\u{ab70}')).toBe(foldText('\u{13a0}'));
  });

  it("fold each full case folding of Unicode's CaseFolding.txt (status F) as what it folds to", () => {
    // Lines of CaseFolding.txt: the code point and the code points it folds to.
    const fullFoldings: Array<[number, number[]]> = [
      [0x00df, [0x0073, 0x0073]],
      [0x0130, [0x0069, 0x0307]],
      [0x0149, [0x02bc, 0x006e]],
      [0x01f0, [0x006a, 0x030c]],
      [0x0390, [0x03b9, 0x0308, 0x0301]],
      [0x0587, [0x0565, 0x0582]],
      [0x1e96, [0x0068, 0x0331]],
      [0x1e9e, [0x0073, 0x0073]],
      [0x1f52, [0x03c5, 0x0313, 0x0300]],
      [0x1f80, [0x1f00, 0x03b9]],
      [0x1fb3, [0x03b1, 0x03b9]],
      [0x1ffc, [0x03c9, 0x03b9]],
      [0xfb00, [0x0066, 0x0066]],
      [0xfb06, [0x0073, 0x0074]],
      [0xfb13, [0x0574, 0x0576]],
    ];
    for (const [code, folding] of fullFoldings) {
      expect(foldText(String.fromCodePoint(code))).toBe(foldText(String.fromCodePoint(...folding)));
    }
  });

  it('fold every code point as its capital and its lower case, once for all', () => {
    const unlike: string[] = [];
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const character = String.fromCodePoint(code);
      const folded = foldText(character);
      for (const other of [character.toUpperCase(), character.toLowerCase(), folded]) {
        if (other !== character && foldText(other) !== folded) unlike.push(code.toString(16));
      }
    }
    expect(unlike).toEqual([]);
  });

  it("fold alike the characters that the engine's simple case folding (a /iu pattern) takes for one", () => {
    // Every character case folding may change or give, grouped by its fold here.
    const cased = /[\p{Cased}\p{Changes_When_Casemapped}\p{Changes_When_Casefolded}]/u;
    const groups = new Map<string, number[]>();
    for (let code = 0; code <= 0x10ffff; code++) {
      if (code >= 0xd800 && code <= 0xdfff) continue;
      const character = String.fromCodePoint(code);
      if (!cased.test(character)) continue;
      const folded = foldText(character);
      groups.set(folded, [...(groups.get(folded) ?? []), code]);
    }
    const all = [...groups.values()].flat();
    expect(all.length).toBeGreaterThan(4000);
    const text = String.fromCodePoint(...all);
    // No character is, to the engine's case folding, one with a character of another group.
    const strays: string[] = [];
    for (const [folded, codes] of groups) {
      const members = codes.map((code) => `\\u{${code.toString(16)}}`).join('');
      for (const [match] of text.matchAll(new RegExp(`[${members}]`, 'giu'))) {
        if (foldText(match) !== folded) strays.push(`${codes.map((code) => code.toString(16)).join(' ')}: ${match}`);
      }
    }
    expect(strays).toEqual([]);
  });

  it("split an organization's slug on hyphens", () => {
    expect(organizationWords('Acme Corp', 'acme-corp-2').sort()).toEqual(['acme', 'corp', '2', 'acme-corp-2'].sort());
  });

  it('fold once for all: folding folded text changes nothing', () => {
    fc.assert(fc.property(fc.string({ unit: 'grapheme' }), (text) => foldText(foldText(text)) === foldText(text)));
  });

  it('bound the words that begin with a prefix, in code point order', () => {
    expect(prefixEnd('ab')).toBe('ac');
    expect(prefixEnd('a\u{10ffff}')).toBe('b');
    expect(prefixEnd('\u{10ffff}')).toBeNull();
    expect(prefixEnd('\ud7ff')).toBe('\ue000');
    const byCodePoints = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b));
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', minLength: 1 }), fc.string({ unit: 'grapheme' }), (prefix, rest) => {
        const end = prefixEnd(prefix);
        const word = prefix + rest;
        expect(byCodePoints(word, prefix)).toBeGreaterThanOrEqual(0);
        if (end !== null) expect(byCodePoints(word, end)).toBeLessThan(0);
      }),
    );
  });
});
