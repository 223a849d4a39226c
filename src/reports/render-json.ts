import type { Report } from './schema.js';

/** The report model as compact UTF-8 JSON with a trailing newline: the `json` artifact. */
export function renderJson(report: Report): Buffer {
  return Buffer.from(`${JSON.stringify(report)}\n`, 'utf8');
}
