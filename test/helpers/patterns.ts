// Random path patterns of the grammar and random staged files, for the property tests of the overlap rule and the index.
import fc from 'fast-check';

// Names over a small alphabet, with case and two Unicode spellings of é, so that random patterns meet often.
const LETTERS = ['a', 'b', 'A', '.', 'é', 'e\u0301'];
export const literalName = fc
  .array(fc.constantFrom(...LETTERS), { minLength: 1, maxLength: 3 })
  .map((cs) => cs.join(''))
  .filter((n) => n !== '.' && n !== '..');
const wildName = fc.oneof(
  fc.constant('*'),
  literalName.map((n) => `*${n}`),
  literalName.map((n) => `${n}*`),
);
const anchored = fc
  .tuple(fc.array(literalName, { maxLength: 3 }), fc.oneof(literalName, wildName), fc.boolean())
  .map(([folders, last, trailing]) => [...folders, last, ...(trailing ? ['**'] : [])].join('/'));
const anywhere = fc
  .tuple(fc.option(fc.oneof(literalName, wildName), { nil: undefined }), fc.boolean())
  .map(([name, trailing]) => ['**', ...(name === undefined ? [] : [name]), ...(trailing ? ['**'] : [])].join('/'));
/** A pattern the grammar accepts. */
export const pattern = fc.oneof({ weight: 4, arbitrary: anchored }, { weight: 1, arbitrary: anywhere });
/** A file as git would stage it: names with no wildcard characters (where the old rule read it literally too). */
export const file = fc.array(literalName, { minLength: 1, maxLength: 5 }).map((names) => names.join('/'));

