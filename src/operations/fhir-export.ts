import type { NormalisedSubmission } from '../domain/submission/panel.js';
import { buildFhirBundle } from '../reports/fhir/bundle.js';
import type { ResultExportSource } from '../store/tenant-access.js';

/** The result's FHIR R4 bundle (the API's route and the console's download). */
export function fhirBundleOf(source: ResultExportSource) {
  return buildFhirBundle({
    resultId: source.resultId,
    partnerId: source.partnerId,
    partnerSubjectId: source.partnerSubjectId,
    receivedAt: source.receivedAt,
    submission: JSON.parse(source.normalisedBody) as NormalisedSubmission,
    result: source.bundle,
  });
}
