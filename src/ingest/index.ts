/**
 * How a submission comes in (docs/architecture.md, "Ingest"): `acceptSubmission` in
 * `accept.ts` is the one entry; what else is exported here is what others share with it. The
 * rest of this directory is its inside: `http/` may import this file only (biome.json).
 */
export {
  acceptSubmission,
  type IngestDeps,
  type IngestVerdict,
  type Refusal,
  type SubmissionRequest,
} from './accept.js';
/** The worker checks a stored submission again with the door's reader and checks. */
export { type CheckPoint, checkStoredSubmission } from './check.js';
/** Which checks the door ran: the worker runs them again only when its own differ. */
export { checksIdentity } from './checks-identity.js';
/** The headers' schema also feeds the API description. */
export { submissionHeadersSchema } from './headers.js';
/** The one JSON reader, for the other JSON bodies the HTTP layer takes. */
export { MAX_JSON_DEPTH, MAX_JSON_VALUES, readJsonText } from './read-json.js';
