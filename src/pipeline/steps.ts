import type { Transaction } from 'kysely';
import type { Clock } from '../clock.js';
import { SIMULATIONS, simulationOf } from '../domain/mode.js';
import { scoreSubmission } from '../domain/model/index.js';
import type { ModelResult } from '../domain/model/types.js';
import { ARTIFACT_TYPES, type ArtifactType, type NormalisedSubmission } from '../domain/submission/index.js';
import { checkStoredSubmission } from '../ingest/index.js';
import type { JobKinds } from '../queue/kinds.js';
import type { ClaimedJob, CompletionContext, JobDefinition, NewJob } from '../queue/types.js';
import { ExpectedJobError, PermanentJobError } from '../queue/types.js';
import type { Database } from '../store/database.js';
import type { SystemStore } from '../store/index.js';
import { emit } from '../telemetry/events.js';
import { tracing } from '../telemetry/tracing.js';
import { recordResultReady } from '../webhooks/outbox.js';
import { renderSource } from './recreate-artifact.js';
import type { RenderedReport } from './render-types.js';
import type { ReportRenderer } from './report-renderer.js';

export interface PipelineDeps {
  store: SystemStore;
  renderer: ReportRenderer;
  maxAttempts: number;
  /** The service's clock, for the hooks that run outside a step (start, final failure). */
  clock: Clock;
  /** `WEBHOOK_RETRY_SCHEDULE`, for the `result.ready` deliveries a completed result enqueues. */
  webhookScheduleMs: number[];
}

/** The pipeline's job kinds, in the order a submission goes through them. */
export const PIPELINE_KINDS = [
  'pipeline.ingest_validate',
  'pipeline.score',
  'pipeline.render_reports',
] as const;
export type PipelineKind = (typeof PIPELINE_KINDS)[number];

/** A stored submission that fails the checks it passed at ingest: `rejected`, not `failed`. */
class RejectedSubmission extends PermanentJobError {}

/** Why a stored submission is rejected, by the check it no longer passes. */
const REJECTIONS = {
  unreadable: 'The stored submission is not valid JSON.',
  invalid: 'The submission no longer matches the submission schema.',
  partner: 'The submission names a different partner than the key that sent it.',
  panel: 'The marker panel no longer passes the panel checks.',
} as const;

/** `simulate:processing_failure` (test mode): every scoring attempt fails, so it is retried. */
class SimulatedFailure extends ExpectedJobError {
  constructor() {
    super(
      `Processing failed on purpose: test submissions whose partnerSubmissionId starts with "${SIMULATIONS.processingFailure}" always fail.`,
      'simulated_failure',
    );
  }
}

function requireSubmissionId(job: ClaimedJob): string {
  if (!job.submissionId) throw new PermanentJobError('This step has no submission to work on.');
  return job.submissionId;
}

function nextJob(job: ClaimedJob, type: NewJob['type'], maxAttempts: number): NewJob {
  // Later steps keep the acceptance time and deadline of the submission they serve.
  return {
    type,
    tenantId: job.tenantId,
    submissionId: job.submissionId,
    correlationId: job.correlationId,
    requestId: job.requestId,
    acceptedAt: job.acceptedAt,
    slaDeadlineAt: job.slaDeadlineAt,
    maxAttempts,
  };
}

function requestedArtifacts(sub: NormalisedSubmission): ArtifactType[] {
  const outputs = new Set<string>(sub.options.requestedOutputs);
  return ARTIFACT_TYPES.filter((t) => outputs.has(t));
}

/**
 * Each report's render time, and a span for it in the render job's trace: recorded after the
 * fact with the times the rendering thread measured, since spans do not cross threads.
 */
function reportRenders(rendered: Map<ArtifactType, RenderedReport>): void {
  const t = tracing();
  for (const [type, r] of rendered) {
    emit('report.rendered', { type, seconds: r.timing.ms / 1000 });
    if (!t.enabled) continue;
    t.start(`render ${type}`, {
      startTimeMs: r.timing.startedAtMs,
      attributes: { 'healthspan.report.type': type },
    }).end(r.timing.startedAtMs + r.timing.ms);
  }
}

/** Registers the pipeline's steps as job kinds. */
export function registerPipelineJobs(kinds: JobKinds, deps: PipelineDeps): JobKinds {
  for (const [kind, definition] of Object.entries(pipelineDefinitions(deps)))
    kinds.register(kind, definition);
  return kinds;
}

export function pipelineDefinitions(deps: PipelineDeps): Record<PipelineKind, JobDefinition> {
  const { store, clock } = deps;
  const db = store.db;
  const subs = store.pipeline;
  const results = store.results;

  /** A submission reached its final state: for the latency and SLA metrics. */
  function finished(job: ClaimedJob, status: 'completed' | 'failed' | 'rejected', at: Date): void {
    emit('submission.finished', {
      status,
      receivedAtMs: Date.parse(job.acceptedAt),
      finishedAtMs: at.getTime(),
      slaDeadlineMs: job.slaDeadlineAt === null ? null : Date.parse(job.slaDeadlineAt),
    });
  }

  const afterFailed = (job: ClaimedJob, error: unknown) =>
    finished(job, error instanceof RejectedSubmission ? 'rejected' : 'failed', clock());

  async function failSubmission(trx: Transaction<Database>, job: ClaimedJob, error: unknown): Promise<void> {
    if (!job.submissionId) return;
    await subs.setStatus(
      trx,
      job.submissionId,
      error instanceof RejectedSubmission ? 'rejected' : 'failed',
      clock(),
    );
  }

  /**
   * The submission's result is ready: `completed`, and in the same transaction its
   * `result.ready` event and delivery job when the partner has a callback (the outbox).
   */
  async function complete(
    trx: Transaction<Database>,
    job: ClaimedJob,
    now: Date,
    completion: { enqueue(next: NewJob): Promise<unknown>; afterCommit?: CompletionContext['afterCommit'] },
  ): Promise<void> {
    const { enqueue } = completion;
    const submissionId = requireSubmissionId(job);
    await subs.setStatus(trx, submissionId, 'completed', now);
    completion.afterCommit?.(async () => finished(job, 'completed', now));
    await recordResultReady(
      store,
      trx,
      {
        submissionId,
        now,
        ids: { correlationId: job.correlationId, requestId: job.requestId },
        policy: { scheduleMs: deps.webhookScheduleMs },
      },
      enqueue,
    );
  }

  const ingestValidate: JobDefinition = {
    async onStart(trx, job) {
      await subs.setStatus(trx, requireSubmissionId(job), 'validating', clock());
    },
    async run(job, ctx) {
      const id = requireSubmissionId(job);
      const stored = await subs.load(db, id);
      if (!stored) throw new PermanentJobError('The submission to check no longer exists.');
      // The same reader and checks as at ingest, at the time the submission was received.
      const checked = checkStoredSubmission(stored.originalBody, {
        now: new Date(stored.receivedAt),
        namedPartnerId: stored.namedPartnerId,
      });
      if (!checked.ok) throw new RejectedSubmission(REJECTIONS[checked.refusal.reason]);
      const normalised = checked.normalisedBody;
      return async (trx, completion) => {
        const now = ctx.clock();
        if (normalised !== stored.normalisedBody) await subs.setNormalised(trx, id, normalised, now);
        // Started here, the score step has already said `processing` in this transaction; a
        // `validated` written as well would never be seen.
        const started = await completion.enqueue(nextJob(job, 'pipeline.score', deps.maxAttempts));
        if (!started) await subs.setStatus(trx, id, 'validated', now);
      };
    },
    onFailed: async (trx, job, _summary, error) => failSubmission(trx, job, error),
    afterFailed,
    summarize: () => 'Checking the submission failed because of an internal error.',
  };

  const score: JobDefinition = {
    async onStart(trx, job) {
      await subs.setStatus(trx, requireSubmissionId(job), 'processing', clock());
    },
    async run(job, ctx) {
      const id = requireSubmissionId(job);
      const stored = await subs.load(db, id);
      if (!stored) throw new PermanentJobError('The submission to score no longer exists.');
      if (simulationOf(stored.mode, stored.partnerSubmissionId) === 'processingFailure') {
        throw new SimulatedFailure();
      }
      const sub = JSON.parse(stored.normalisedBody) as NormalisedSubmission;
      // Evaluated at the time of receipt, so a re-run gives the same numbers.
      const bundle: ModelResult = scoreSubmission(sub, { now: new Date(stored.receivedAt) });
      const artifacts = requestedArtifacts(sub);
      return async (trx, completion) => {
        const now = ctx.clock();
        await results.createOnce(
          trx,
          { tenantId: job.tenantId, submissionId: id, bundle, artifactTypes: artifacts },
          now,
        );
        if (artifacts.length > 0) {
          await completion.enqueue(nextJob(job, 'pipeline.render_reports', deps.maxAttempts));
        } else {
          await complete(trx, job, now, completion);
        }
      };
    },
    onFailed: async (trx, job, _summary, error) => failSubmission(trx, job, error),
    afterFailed,
    summarize: (error) =>
      error instanceof SimulatedFailure ? error.message : 'Scoring failed because of an internal error.',
  };

  const renderReports: JobDefinition = {
    async run(job, ctx) {
      const id = requireSubmissionId(job);
      const submission = await subs.load(db, id);
      const result = await results.forSubmission(db, id);
      if (!submission || !result)
        throw new PermanentJobError('The result to render reports for no longer exists.');
      const pending = result.artifacts.filter((a) => a.availability === 'pending');
      const safeName = submission.partnerSubmissionId.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 80);
      // Rendered outside any transaction; the bytes and the rows that say "available" are
      // then written in one commit.
      const rendered = await deps.renderer.render(
        renderSource(submission, result),
        pending.map((a) => a.type as ArtifactType),
        ctx.signal,
      );
      reportRenders(rendered);
      const written = pending.flatMap((a) => {
        const r = rendered.get(a.type as ArtifactType);
        return r
          ? [
              {
                artifactId: a.artifactId,
                body: r.body,
                byteSize: r.body.length,
                contentType: r.contentType,
                fileName: `wellbeing-report-${safeName}.${r.fileExtension}`,
                sha256: r.sha256,
              },
            ]
          : [];
      });
      return async (trx, completion) => {
        const now = ctx.clock();
        await store.artifacts.putAll(trx, written);
        await results.markAvailable(trx, result.resultId, written, now);
        await complete(trx, job, now, completion);
      };
    },
    // Scores exist even when a renderer keeps failing: the submission completes, and the
    // artifacts that could not be made say so.
    async onFailed(trx, job) {
      if (!job.submissionId) return;
      const now = clock();
      const result = await results.forSubmission(trx, job.submissionId);
      if (result) {
        await results.markPendingUnavailable(trx, result.resultId, now);
        await results.touch(trx, result.resultId, now);
      }
      await complete(trx, job, now, {
        enqueue: async (next) => {
          await store.jobs.enqueue(trx, next, now);
        },
      });
    },
    afterFailed: (job) => finished(job, 'completed', clock()),
    summarize: () => 'Preparing the reports failed because of an internal error.',
  };

  return {
    'pipeline.ingest_validate': ingestValidate,
    'pipeline.score': score,
    'pipeline.render_reports': renderReports,
  };
}
