import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CURRENT_DICTIONARY, dictionary, dictionaryIds } from '../../src/store/packing/dictionaries.js';
import { isPacked, packJson, unpackJson } from '../../src/store/packing/packed-json.js';
import { tempDataDir } from '../helpers/dirs.js';

const example = fs.readFileSync(path.resolve(import.meta.dirname, '../../examples/submission.json'), 'utf8');
const text = JSON.stringify({ note: 'ünïcödé ✓ 漢字', n: 1 });

describe('packed JSON documents', () => {
  it('keeps every dictionary a stored value may name, byte for byte', () => {
    // Stored values unpack only with these exact bytes: a dictionary is added, never changed.
    const sha256 = (id: number) => createHash('sha256').update(dictionary(id)).digest('hex');
    expect(Object.fromEntries(dictionaryIds().map((id) => [id, sha256(id)]))).toEqual({
      1: '70538bd8a1befe38883c6e522c9eac20ca20eef7d75a24dbc39be0fd3baf1ef0',
      2: '7acd4152319a16338998c1189fff683efe4bbef9f03851ff07f7814593cdda63',
    });
    expect(CURRENT_DICTIONARY).toEqual({ submission: 1, result: 2 });
  });

  it('unpacks values packed by an earlier build', () => {
    // Written on 2026-11-29; deflate's output may differ between zlib builds, its input never.
    expect(
      unpackJson(Buffer.from('AAGrVsrLLwEJH96Td3h98uFtKYdXKjyaM1nh2Z5FT9dOV9JRylOyMqwFAA==', 'base64')),
    ).toBe(text);
    expect(unpackJson(Buffer.from('AAKrhuk6vCfv8Prkw9tSDq9UeDRnssKzPYuerp0OMlXJyrAWAA==', 'base64'))).toBe(
      text,
    );
    const packedExample =
      'AAHd10ELwiAUwPHv4nmMvebMunbsQ0SRTQ/LoY4RfflQOjRQeXaJdpTtsMHz788VFSjC5Y4uGzRL5cTpYpRTVkZaBCxsx7OdjHjP65PMwpP32JM943VXERnWh8G/3uXb1Wt9TbTrps0gTPh/m+qWf/QZLWgqYp0ew0aksP6CxQ3N0YaWj1EYJ+5htEtLxwEdujTGKa0BSXGcwwFl8LTqI/5uWQG/czSN43uXhu/C3husu7Ofu1Q32ty5O0VU3FDi7eYbbLfbf4f2b460Fw==';
    expect(unpackJson(Buffer.from(packedExample, 'base64'))).toBe(JSON.stringify(JSON.parse(example)));
  });

  it('round-trips text of either kind, and is raw deflate with the dictionary after a two-byte header', () => {
    for (const kind of ['submission', 'result'] as const) {
      for (const value of [text, example, '{}', JSON.stringify({ s: 'x'.repeat(100_000) })]) {
        const packed = packJson(value, kind);
        expect([packed[0], packed[1]]).toEqual([0, CURRENT_DICTIONARY[kind]]);
        expect(isPacked(packed)).toBe(true);
        expect(unpackJson(packed)).toBe(value);
        // zlib itself reads it back: nothing of ours in the format but the header.
        const inflated = zlib.inflateRawSync(packed.subarray(2), { dictionary: dictionary(packed[1]!) });
        expect(inflated.toString('utf8')).toBe(value);
      }
    }
  });

  it('makes the example submission a fraction of its text', () => {
    const packed = packJson(example, 'submission');
    expect(packed.length).toBeLessThan(example.length / 4);
    expect(packJson(JSON.stringify(JSON.parse(example)), 'submission').length).toBeLessThan(250);
  });

  it('reads values stored before packing: text, or its bytes', () => {
    expect(unpackJson(text)).toBe(text);
    expect(unpackJson(Buffer.from(text, 'utf8'))).toBe(text);
    expect(unpackJson(new Uint8Array(Buffer.from(text, 'utf8')))).toBe(text);
    expect(isPacked(Buffer.from(text, 'utf8'))).toBe(false);
    expect(isPacked(text)).toBe(false);
  });

  it('reads a packed value handed over as a plain Uint8Array (a worker thread’s copy)', () => {
    const packed = packJson(example, 'submission');
    const copy = structuredClone(new Uint8Array(packed));
    expect(Buffer.isBuffer(copy)).toBe(false);
    expect(unpackJson(copy)).toBe(example);
  });

  it('says which dictionary it lacks when a newer version packed the value', () => {
    const fromTheFuture = Buffer.concat([Buffer.from([0, 200]), zlib.deflateRawSync(Buffer.from(text))]);
    expect(() => unpackJson(fromTheFuture)).toThrow(
      'A stored value is packed with dictionary 200, which this version of the service does not have.',
    );
  });

  it('gets a new dictionary from the script, which refuses to replace one', () => {
    const dir = tempDataDir();
    const script = path.resolve(import.meta.dirname, '../../scripts/pack-dictionary.mjs');
    const run = () =>
      spawnSync(process.execPath, [script, '--kind', 'result', '--id', '3', '--dir', dir], {
        encoding: 'utf8',
      });
    const made = run();
    expect(made.stderr).toBe('');
    const written = fs.readFileSync(path.join(dir, 'dictionary-3.ts'), 'utf8');
    const bytes = Buffer.from(/DICTIONARY_3 = '([A-Za-z0-9+/=]+)'/.exec(written)![1]!, 'base64');
    expect(bytes.length).toBe(32_768);
    // Synthetic results of today's model: its wording, in words the bundles share.
    expect(bytes.toString('utf8')).toContain('"label":"Body mass index"');
    expect(made.stdout).toContain(createHash('sha256').update(bytes).digest('hex'));
    const again = run();
    expect(again.status).toBe(1);
    expect(again.stderr).toContain('exists: a dictionary is never replaced; choose a new id.');
  });
});
