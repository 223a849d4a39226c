import fs from 'node:fs';
import path from 'node:path';

/**
 * The shell blocks (```sh) of the README and docs, each named by its file and the heading it
 * stands under (`README.md › ## Walkthrough…`, with ` #2` for a heading's second block).
 */
export interface DocBlock {
  key: string;
  file: string;
  line: number;
  text: string;
  /** Why no test runs it as written: an example to adapt, or run elsewhere; undefined otherwise. */
  notRun: string | undefined;
}

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every Markdown file whose commands a reader runs: README.md, docs/, the client's README. */
export function docFiles(): string[] {
  const docs = fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs.sort(), 'packages/client/README.md'];
}

/** `# Example…` as a block's first line, or `<!-- run elsewhere: … -->` on the line before it. */
function notRun(first: string, before: string): string | undefined {
  if (/^# Example\b/.test(first)) return first;
  return /^<!-- run elsewhere: (.+) -->$/.exec(before)?.[1];
}

export function shBlocks(file: string): DocBlock[] {
  const lines = fs.readFileSync(path.join(ROOT, file), 'utf8').split('\n');
  const blocks: DocBlock[] = [];
  const perHeading = new Map<string, number>();
  let heading = '(top)';
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\S*)/.exec(lines[i]!);
    if (!fence) {
      if (/^#{1,6} /.test(lines[i]!)) heading = lines[i]!;
      continue;
    }
    const end = lines.findIndex((l, j) => j > i && l.startsWith('```'));
    if (end < 0) throw new Error(`${file}:${i + 1}: a block that never ends`);
    if (fence[1] === 'sh') {
      const n = (perHeading.get(heading) ?? 0) + 1;
      perHeading.set(heading, n);
      const body = lines.slice(i + 1, end);
      blocks.push({
        key: `${file} › ${heading}${n > 1 ? ` #${n}` : ''}`,
        file,
        line: i + 1,
        text: `${body.join('\n')}\n`,
        notRun: notRun(body[0] ?? '', lines[i - 1] ?? ''),
      });
    }
    i = end;
  }
  return blocks;
}

/** The block named `key`. */
export function docBlock(key: string): string {
  const file = key.slice(0, key.indexOf(' › '));
  const found = shBlocks(file).find((b) => b.key === key);
  if (!found) throw new Error(`no sh block ${key}`);
  return found.text;
}
