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
