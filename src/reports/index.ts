import { renderHtml } from './render-html.js';
import { renderJson } from './render-json.js';
import { renderPdf } from './render-pdf.js';
import type { Report } from './schema.js';

/** The report artifacts: one report model (buildReport), three renderers. */

export { buildReport, type ReportInput } from './model.js';
export { renderHtml } from './render-html.js';
export { renderJson } from './render-json.js';
export { renderPdf } from './render-pdf.js';
export {
  type MarkerPosition,
  REPORT_SCHEMA_VERSION,
  type Report,
  type ReportDerivedItem,
  type ReportInterval,
  type ReportMarker,
  type ReportOutcome,
  reportSchema,
} from './schema.js';

export type ArtifactKind = 'json' | 'html' | 'pdf';

export interface RenderedArtifact {
  body: Buffer;
  contentType: string;
  fileExtension: string;
}

export async function renderArtifact(type: ArtifactKind, report: Report): Promise<RenderedArtifact> {
  switch (type) {
    case 'json':
      return {
        body: renderJson(report),
        contentType: 'application/json; charset=utf-8',
        fileExtension: 'json',
      };
    case 'html':
      return { body: renderHtml(report), contentType: 'text/html; charset=utf-8', fileExtension: 'html' };
    case 'pdf':
      return { body: await renderPdf(report), contentType: 'application/pdf', fileExtension: 'pdf' };
  }
}
