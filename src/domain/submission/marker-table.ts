import { MARKER_ALIASES, MARKER_CODES, MARKERS, type MarkerCode } from './markers.js';

/** The aliases that resolve to each canonical code, in catalogue order. */
export function aliasesOf(code: MarkerCode): string[] {
  return Object.entries(MARKER_ALIASES)
    .filter(([, target]) => target === code)
    .map(([alias]) => alias);
}

/**
 * The panel as a Markdown table (code, name, required unit, default range, aliases), written
 * from the catalogue the panel check uses, so the API description cannot disagree with it.
 */
export function markerTableMarkdown(): string {
  const rows = MARKER_CODES.map((code) => {
    const m = MARKERS[code];
    const aliases = aliasesOf(code).map((a) => `\`${a}\``);
    return `| \`${code}\` | ${m.name} | ${m.unit} | ${m.defaultRange.lower} to ${m.defaultRange.upper} | ${aliases.join(', ') || '–'} |`;
  });
  return [
    '| Code | Marker | Required unit | Default range (inclusive) | Accepted aliases |',
    '|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
