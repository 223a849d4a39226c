import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { formatPath } from '../../src/domain/submission/index.js';
import { findDuplicateKeys } from '../../src/ingest/duplicate-keys.js';
import { MAX_JSON_DEPTH, MAX_JSON_VALUES, readJsonText } from '../../src/ingest/read-json.js';

function errorsOf(text: string) {
  const read = readJsonText(text);
  if (read.ok) throw new Error(`expected an error for ${text}`);
  return read.errors;
}

function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  const children = Array.isArray(value) ? value : Object.values(value);
  return 1 + Math.max(0, ...children.map(depthOf));
}

describe('readJsonText', () => {
  it('reads what JSON.parse reads, for any JSON value within the depth limit', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => {
        const text = JSON.stringify(value);
        const read = readJsonText(text);
        expect(read.ok).toBe(true);
        if (read.ok) expect(read.value).toEqual(JSON.parse(text));
      }),
      { seed: 12, numRuns: 500 },
    );
  });

  it('finds a repeated key wherever it is injected, escaped or not', () => {
    fc.assert(
      fc.property(
        fc.dictionary(fc.string({ minLength: 1, maxLength: 6 }), fc.jsonValue({ maxDepth: 2 }), {
          minKeys: 1,
          maxKeys: 5,
        }),
        fc.boolean(),
        (object, escapeFirst) => {
          const [key] = Object.keys(object);
          const written = escapeFirst
            ? `\\u${key!.charCodeAt(0).toString(16).padStart(4, '0')}${key!.slice(1)}`
            : key!;
          const text = `{"wrapper":{"${JSON.stringify(written).slice(1, -1).replaceAll('\\\\u', '\\u')}":1,${JSON.stringify(object).slice(1)}}`;
          const errors = errorsOf(text);
          expect(Object.values(errors.fieldErrors).flat().join(' ')).toContain('appears more than once');
        },
      ),
      { seed: 13, numRuns: 300 },
    );
  });

  it('does not mistake escaped quotes inside strings for keys', () => {
    for (const text of [
      '{"a":"say \\"b\\": 1","b":"\\\\"}',
      '{"a":"\\u0022b\\u0022:1","b":2}',
      '{"a\\"":1,"a":2}',
      '{"":1,"\\u0000x":2}'.replace('\\u0000x', 'x'),
    ]) {
      expect(readJsonText(text).ok, text).toBe(true);
    }
  });

  it('ignores a leading byte-order mark', () => {
    expect(readJsonText('\uFEFF{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
  });

  it('refuses unpaired surrogates and NUL at their path, in keys too', () => {
    expect(errorsOf('{"a":{"b":["x","\\udc00"]}}').fieldErrors).toEqual({
      'a.b[1]': [expect.stringMatching(/not valid Unicode text/)],
    });
    expect(errorsOf('{"a":"\\ud800"}').fieldErrors.a).toBeDefined();
    expect(errorsOf('{"a":"x\\u0000"}').fieldErrors.a).toEqual([expect.stringMatching(/NUL/)]);
    expect(Object.values(errorsOf('{"k\\udfff":1}').fieldErrors).flat()[0]).toMatch(/This key/);
    // A well-formed pair is text.
    expect(readJsonText('{"a":"\\ud83d\\ude00"}').ok).toBe(true);
  });

  it(`allows ${MAX_JSON_DEPTH} levels of nesting and refuses one more, at any depth`, () => {
    const nested = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;
    expect(depthOf(JSON.parse(nested(MAX_JSON_DEPTH)))).toBe(MAX_JSON_DEPTH);
    expect(readJsonText(nested(MAX_JSON_DEPTH)).ok).toBe(true);
    for (const n of [MAX_JSON_DEPTH + 1, 1_000_000]) {
      expect(errorsOf(nested(n)).formErrors).toEqual([
        `The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`,
      ]);
    }
  });

  it(`allows ${MAX_JSON_VALUES} values and refuses more, before any schema check could cost much`, () => {
    // An array counts as a value, as does each of its items.
    expect(readJsonText(JSON.stringify(Array(MAX_JSON_VALUES - 1).fill(1))).ok).toBe(true);
    expect(errorsOf(JSON.stringify(Array(MAX_JSON_VALUES).fill(1))).formErrors[0]).toMatch(
      `more than ${MAX_JSON_VALUES} values`,
    );
    expect(
      errorsOf(JSON.stringify({ a: Array.from({ length: 60_000 }, (_, i) => ({ [`k${i}`]: 'v' })) }))
        .formErrors,
    ).toHaveLength(1);
  });

  it('refuses prototype keys without polluting anything', () => {
    expect(errorsOf('{"x":{"__proto__":{"polluted":1}}}').fieldErrors['x.__proto__']).toBeDefined();
    expect(Object.hasOwn(errorsOf('{"__proto__":1}').fieldErrors, '__proto__')).toBe(true);
    expect(Object.keys(errorsOf('{"a":{"constructor":{"prototype":{}}}}').fieldErrors)).toEqual([
      'a.constructor',
    ]);
    expect(readJsonText('{"constructor":"ok"}').ok).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('says where invalid JSON stopped, and when the body is empty', () => {
    expect(errorsOf('{\n  "a": 1,\n}').formErrors).toEqual([
      'The request body is not valid JSON (line 3, column 1).',
    ]);
    expect(errorsOf('  ').formErrors).toEqual(['The request body is empty; send a JSON object.']);
  });
});

/** A JSON text whose objects may repeat keys, written with a mix of raw characters and escapes. */
type Tree = string | number | boolean | null | Tree[] | { members: Array<[string, Tree]> };

const KEYS = ['a', 'b', 'ab', '"', 'a"b', '\\', 'é', 'µ', '\u0000', '\ud800', '\udc00', '😀', '__proto__'];

// Mostly a few keys, so that objects often repeat one.
const memberKey = fc.oneof(fc.constantFrom('a', '"', '\ud800'), fc.constantFrom(...KEYS));

const tree = fc.letrec<{ value: Tree }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.oneof(fc.constantFrom(...KEYS), fc.string({ unit: 'binary', maxLength: 4 })),
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.array(fc.tuple(memberKey, tie('value')), { maxLength: 5 }).map((members) => ({ members })),
  ),
})).value;

/** Writes `value` as JSON text, each character raw or escaped as `choices` says. */
function writeTree(value: Tree, choices: number[]): string {
  let at = 0;
  const next = () => choices[at++ % choices.length]!;
  const str = (text: string) => {
    let out = '"';
    for (const ch of text) {
      const code = ch.charCodeAt(0);
      const choice = next();
      if (choice === 0 || (ch.length === 1 && (code < 0x20 || ch === '"' || ch === '\\') && choice !== 1)) {
        for (let i = 0; i < ch.length; i++) {
          const hex = ch.charCodeAt(i).toString(16).padStart(4, '0');
          out += `\\u${next() % 2 === 0 ? hex : hex.toUpperCase()}`;
        }
      } else if (ch === '"' || ch === '\\') out += `\\${ch}`;
      else if (code < 0x20) out += JSON.stringify(ch).slice(1, -1);
      else out += ch;
    }
    return `${out}"`;
  };
  const write = (v: Tree): string => {
    if (typeof v === 'string') return str(v);
    if (typeof v !== 'object' || v === null) return JSON.stringify(v);
    if (Array.isArray(v)) return `[${v.map(write).join(',')}]`;
    return `{${v.members.map(([k, item]) => `${str(k)}${next() === 3 ? ' : ' : ':'}${write(item)}`).join(',')}}`;
  };
  return write(value);
}

/** The repeated-key messages among `errors`, by field (a field may be named "__proto__"). */
function duplicateErrors(errors: Record<string, string[]>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [field, messages] of Object.entries(errors)) {
    const repeated = messages.filter((m) => m.includes('appears more than once'));
    if (repeated.length > 0) out.set(field, repeated);
  }
  return out;
}

describe('readJsonText and the careful duplicate-key tokenizer', () => {
  it('report the same repeated keys, whatever the escapes, quotes and surrogates in the text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(memberKey, tree), { minLength: 1, maxLength: 5 }),
        fc.array(fc.nat({ max: 4 }), { minLength: 1, maxLength: 64 }),
        (members, choices) => {
          const text = writeTree({ members }, choices);
          // The careful path, as the reader took it for every text with a \u escape.
          const expected = new Map<string, string[]>();
          for (const { path, key } of findDuplicateKeys(text)) {
            const field = formatPath(path) || '(body)';
            const message = `The key ${JSON.stringify(key)} appears more than once in this object.`;
            expected.set(field, [...new Set([...(expected.get(field) ?? []), message])]);
          }
          const read = readJsonText(text);
          expect(read.ok ? new Map() : duplicateErrors(read.errors.fieldErrors)).toEqual(expected);
        },
      ),
      { seed: 14, numRuns: 3000 },
    );
  });

  it('see a key repeated through a \\u0022 quote, which leaves no quote in the text', () => {
    const errors = errorsOf('{"a\\u0022":1,"x":"\\"","a\\"":2}').fieldErrors;
    expect(duplicateErrors(errors)).toEqual(
      new Map([['["a\\""]', ['The key "a\\"" appears more than once in this object.']]]),
    );
    expect(errorsOf('{"\\u0061":1,"a":2}').fieldErrors).toEqual({
      a: ['The key "a" appears more than once in this object.'],
    });
  });
});

describe('findDuplicateKeys', () => {
  it('names each repeated key with the path of its object', () => {
    expect(findDuplicateKeys('{"a":[{"b":1,"b":2}],"c":{"d":{"e":1,"e":2,"e":3}}}')).toEqual([
      { path: ['a', 0, 'b'], key: 'b' },
      { path: ['c', 'd', 'e'], key: 'e' },
      { path: ['c', 'd', 'e'], key: 'e' },
    ]);
    expect(findDuplicateKeys('{"a":{"b":1},"c":{"b":1}}')).toEqual([]);
  });
});
