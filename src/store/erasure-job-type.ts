/** The job kind that erases one submission of an erasure (`lifecycle/erasure-job.ts` runs it). */
export const ERASURE_JOB_TYPE = 'subject.erase';
