/** The longest subject reference a partner may ask to erase (the API's path, the console's form). */
export const SUBJECT_MAX = 512;

/** Whether a subject reference may be erased: the API's rule, and the console's. */
export function isSubjectReference(subject: string): boolean {
  return subject.length >= 1 && subject.length <= SUBJECT_MAX;
}
