import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * Every package the service ships with (the production dependencies, as package-lock.json records
 * them with their declared licence) is under a licence on this list, or named below with why it is
 * fine. A new dependency under another licence fails here until someone has read it
 * (docs/security.md, "Supply chain").
 */
const ALLOWED = new Set([
  'MIT',
  'ISC',
  'BSD-2-Clause',
  'BSD-3-Clause',
  'Apache-2.0',
  '0BSD',
  'BlueOak-1.0.0',
  'Unlicense',
  'CC0-1.0',
]);

/** Packages whose licence field is not an SPDX id on the list, each read and found fine. */
const READ: Record<string, string> = {
  // Bitstream Vera's font licence (SPDX Bitstream-Vera: use, copy, modify and sell, renamed if
  // modified) plus DejaVu's changes in the public domain: the fonts our PDF reports embed.
  'dejavu-fonts-ttf': 'SEE LICENSE IN README.md AND LICENSE',
};

interface LockEntry {
  license?: string;
  dev?: boolean;
  devOptional?: boolean;
  link?: boolean;
}

function productionPackages(): Array<{ name: string; license: string | undefined }> {
  const lock = JSON.parse(
    fs.readFileSync(path.resolve(import.meta.dirname, '../../package-lock.json'), 'utf8'),
  ) as {
    packages: Record<string, LockEntry>;
  };
  return Object.entries(lock.packages)
    .filter(
      ([where, entry]) => where.includes('node_modules/') && !entry.dev && !entry.devOptional && !entry.link,
    )
    .map(([where, entry]) => ({
      name: where.slice(where.lastIndexOf('node_modules/') + 13),
      license: entry.license,
    }))
    .filter(({ name }) => !name.startsWith('@healthspan/'));
}

/** The packages whose licence is neither on the list nor read: `name: licence`. */
function refused(packages: Array<{ name: string; license: string | undefined }>): string[] {
  return packages
    .filter(({ name, license }) => {
      if (license === undefined) return true;
      return !ALLOWED.has(license) && READ[name] !== license;
    })
    .map(({ name, license }) => `${name}: ${license ?? 'no licence declared'}`);
}

describe('licences of the production dependencies', () => {
  it('are each on the allow-list, or read and named', () => {
    const packages = productionPackages();
    expect(packages.length).toBeGreaterThan(100);
    expect(refused(packages)).toEqual([]);
  });

  it('refuse a package under a licence nobody read, or none', () => {
    expect(
      refused([
        { name: 'copyleft', license: 'GPL-3.0-only' },
        { name: 'dejavu-fonts-ttf', license: 'GPL-2.0' },
        { name: 'silent', license: undefined },
        { name: 'fine', license: 'MIT' },
      ]),
    ).toEqual(['copyleft: GPL-3.0-only', 'dejavu-fonts-ttf: GPL-2.0', 'silent: no licence declared']);
  });
});
