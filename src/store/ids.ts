import { v5 as uuidv5, v7 as uuidv7 } from 'uuid';

/** Time-ordered ids keep primary-key indexes append-mostly. */
export function newId(): string {
  return uuidv7();
}

/**
 * A subject is identified by the partner's de-identified reference within one tenant; a
 * name-based UUID gives the same subjectId for every submission of that subject without a
 * lookup on the ingest path.
 */
export function subjectIdFor(tenantId: string, partnerSubjectId: string): string {
  return uuidv5(partnerSubjectId, tenantId);
}
