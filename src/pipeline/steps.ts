import type { JobKinds } from '../queue/kinds.js';
import type { JobDefinition } from '../queue/types.js';
import type { PipelineDeps } from './steps/common.js';
import { submissionEnd } from './steps/complete.js';
import { renderStep } from './steps/render.js';
import { scoreStep } from './steps/score.js';
import { validateStep } from './steps/validate.js';

export type { PipelineDeps } from './steps/common.js';

/** The pipeline's job kinds, in the order a submission goes through them. */
export const PIPELINE_KINDS = [
  'pipeline.ingest_validate',
  'pipeline.score',
  'pipeline.render_reports',
] as const;
export type PipelineKind = (typeof PIPELINE_KINDS)[number];

/** Registers the pipeline's steps as job kinds. */
export function registerPipelineJobs(kinds: JobKinds, deps: PipelineDeps): JobKinds {
  for (const [kind, definition] of Object.entries(pipelineDefinitions(deps)))
    kinds.register(kind, definition);
  return kinds;
}

/**
 * One file per step (`steps/`); how a submission ends is shared (`steps/complete.ts`). The steps'
 * completions and final-failure hooks run in the worker's commit units and may run
 * twice, the first attempt rolled back (`CommitUnit`): they write through `trx` only, enqueue and
 * report through the completion context (emptied before each attempt), and decide from what they
 * read in `trx` or what the step computed before.
 */
export function pipelineDefinitions(deps: PipelineDeps): Record<PipelineKind, JobDefinition> {
  const end = submissionEnd(deps);
  return {
    'pipeline.ingest_validate': validateStep(deps, end),
    'pipeline.score': scoreStep(deps, end),
    'pipeline.render_reports': renderStep(deps, end),
  };
}
