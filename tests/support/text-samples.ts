/**
 * Generated names and e-mail addresses for the text rules' properties, each with the answer the
 * rules give, worked out here from the rules as stated rather than from the service's code.
 */
import fc from 'fast-check';

/** Unicode's White_Space characters, written out: names are trimmed of exactly these. */
export const UNICODE_WHITE_SPACE = [
  ...'\t\n\u000b\f\r',
  ' ',
  '\u0085',
  '\u00a0',
  '\u1680',
  ...Array.from({ length: 11 }, (_, index) => String.fromCharCode(0x2000 + index)),
  '\u2028',
  '\u2029',
  '\u202f',
  '\u205f',
  '\u3000',
];

/** Control characters that are not white space: refused anywhere in a name. */
const CONTROL_NOT_WHITE_SPACE = ['\u0000', '\u0001', '\u0008', '\u000e', '\u001b', '\u001c', '\u001f', '\u007f'];

/**
 * Characters of a name that are neither white space nor control characters: U+FEFF and U+200B
 * (invisible, allowed beside others), a bidirectional override (refused), a combining accent (composed).
 */
const visibleCharacter = fc.oneof(
  fc.constantFrom('a', 'Z', '7', '-', "'", '.', 'é', 'ß', '\ufeff', '\u200b', '\u202e', 'e\u0301', '😀', '漢'),
  fc
    .integer({ min: 0x21, max: 0xfffd })
    .map((code) => String.fromCharCode(code))
    .filter((character) => !UNICODE_WHITE_SPACE.includes(character) && !/[\p{Cc}\p{Cs}]/u.test(character)),
);

const innerCharacter = fc.oneof(
  { arbitrary: visibleCharacter, weight: 8 },
  { arbitrary: fc.constantFrom(...UNICODE_WHITE_SPACE), weight: 3 },
  { arbitrary: fc.constantFrom(...CONTROL_NOT_WHITE_SPACE), weight: 1 },
);

const whiteSpaceRun = fc.array(fc.constantFrom(...UNICODE_WHITE_SPACE), { maxLength: 4 }).map((run) => run.join(''));

/** Bidirectional embedding, override and isolate controls: refused anywhere in a name. */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069]/;
/** A character that is neither white space nor default-ignorable: a name needs one. */
const COUNTS = /[^\p{White_Space}\p{Default_Ignorable_Code_Point}]/u;

/** A name as sent and what the service makes of it: the trimmed value in NFC, or null where it refuses. */
export interface NameSample {
  sent: string;
  stored: string | null;
}

/**
 * White space at both ends around a core that is empty or starts and ends with a visible character,
 * with white space, control characters and visible ones between; short enough that the length
 * limits never decide.
 */
export const paddedName: fc.Arbitrary<NameSample> = fc
  .record({
    before: whiteSpaceRun,
    core: fc.oneof(
      { arbitrary: fc.constant(''), weight: 1 },
      {
        arbitrary: fc
          .tuple(visibleCharacter, fc.array(innerCharacter, { maxLength: 8 }), visibleCharacter)
          .map(([first, middle, last]) => `${first}${middle.join('')}${last}`),
        weight: 4,
      },
    ),
    after: whiteSpaceRun,
  })
  .map(({ before, core, after }) => ({
    sent: `${before}${core}${after}`,
    stored:
      // eslint-disable-next-line no-control-regex -- the control characters the text rules refuse
      /[\u0000-\u001f\u007f]/.test(core) || BIDI_CONTROLS.test(core) || !COUNTS.test(core)
        ? null
        : core.normalize('NFC'),
  }));

/** An e-mail address and whether every domain label keeps hyphens inside it (RFC 1035). */
export interface AddressSample {
  address: string;
  valid: boolean;
}

/** A domain label, often one that starts or (only) ends with a hyphen. */
const label = fc.oneof(
  { arbitrary: fc.stringMatching(/^[A-Za-z0-9](?:[A-Za-z0-9-]{0,6}[A-Za-z0-9])?$/), weight: 4 },
  { arbitrary: fc.stringMatching(/^-[A-Za-z0-9-]{0,6}$/), weight: 1 },
  { arbitrary: fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9-]{0,6}-$/), weight: 1 },
);

/**
 * `local@label.label.tld` with labels of letters, digits and hyphens anywhere, many starting or
 * ending with one. `unique` makes every local part different, for endpoints that refuse a second use.
 */
export const addressWithLabels = (unique: () => string): fc.Arbitrary<AddressSample> =>
  fc
    .record({
      local: fc.stringMatching(/^[A-Za-z0-9]{1,6}(?:[.+_][A-Za-z0-9]{1,4})?$/),
      labels: fc.array(label, { minLength: 1, maxLength: 3 }),
      tld: fc.stringMatching(/^[A-Za-z]{2,6}$/),
    })
    .map(({ local, labels, tld }) => ({
      address: `${local}.${unique()}@${[...labels, tld].join('.')}`,
      valid: labels.every((part) => !part.startsWith('-') && !part.endsWith('-')),
    }));
