import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';

// The uuid package's, not our own: ours (pooled randomness, the namespace parsed once) saved about
// 5 µs of an ingest request's 500 µs or so, 1–2 %, below the 3 % that would keep it
// (docs/performance-journal.md, "Ids and caches from libraries").

/**
 * Time-ordered ids keep primary-key indexes append-mostly: RFC 9562 version 7, whose counter
 * keeps the ids of one process strictly increasing. Its time is the real one, not the service
 * clock: an id's time orders the index, it is not a stamp.
 */
export function newId(): string {
  return uuidv7();
}

/**
 * A subject is identified by the partner's de-identified reference within one tenant; a
 * name-based UUID (version 5) gives the same subjectId for every submission of that subject
 * without a lookup on the ingest path.
 */
export function subjectIdFor(tenantId: string, partnerSubjectId: string): string {
  return uuidv5(partnerSubjectId, tenantId);
}

/**
 * A submission's result and artifacts get ids derived from the submission, so however often a
 * step runs (a crash between its work and its commit, an operator replaying it), it can only
 * ever produce the same ids: one result per submission by construction, not by luck.
 */
export function resultIdFor(submissionId: string): string {
  return uuidv5('result', submissionId);
}

export function artifactIdFor(resultId: string, type: string): string {
  return uuidv5(`artifact:${type}`, resultId);
}
