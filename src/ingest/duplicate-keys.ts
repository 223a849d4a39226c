import { visit } from 'jsonc-parser';

/**
 * Every key that repeats within one object of `text` (valid JSON), with the path of the object.
 * The slow, exact path of `readJsonText`: a tokenizer that sees the keys `JSON.parse` merges.
 */
export function findDuplicateKeys(text: string): Array<{ path: Array<string | number>; key: string }> {
  const found: Array<{ path: Array<string | number>; key: string }> = [];
  const open: Array<Set<string> | undefined> = [];
  visit(text, {
    onObjectBegin: () => {
      open.push(new Set());
    },
    onObjectEnd: () => {
      open.pop();
    },
    onArrayBegin: () => {
      open.push(undefined);
    },
    onArrayEnd: () => {
      open.pop();
    },
    onObjectProperty: (key, _offset, _length, _line, _column, pathSupplier) => {
      const keys = open[open.length - 1];
      if (!keys) return;
      if (keys.has(key)) found.push({ path: [...pathSupplier(), key], key });
      keys.add(key);
    },
  });
  return found;
}
