import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import type { Clock } from './clock.js';

/** The ids that join every log line of one submission, from its request to its callback. */
export interface WorkIds {
  requestId?: string | undefined;
  correlationId?: string | undefined;
  tenantId?: string | undefined;
  submissionId?: string | undefined;
}

const ID_KEYS = ['requestId', 'correlationId', 'tenantId', 'submissionId'] as const;

/** The ids that are set, for a log line or a job row. */
export function definedIds(ids: WorkIds): WorkIds {
  const out: WorkIds = {};
  for (const key of ID_KEYS) {
    const value = ids[key];
    if (value !== undefined && value !== null) out[key] = value;
  }
  return out;
}

/**
 * What one unit of work (an HTTP request, a job attempt, a maintenance pass) runs with: its ids,
 * a logger that carries them, and the service's clock (Medplum's request context). The logger is
 * made when first used: most requests log one line, from their own logger, and a child logger
 * per request was a measurable part of what an ingest cost.
 */
export class WorkContext implements WorkIds {
  requestId: string | undefined;
  correlationId: string | undefined;
  tenantId: string | undefined;
  submissionId: string | undefined;
  private logger: Logger | undefined;

  constructor(
    /** The logger the ids are bound onto. */
    private readonly base: Logger,
    readonly clock: Clock,
    ids: WorkIds,
    /** Bindings of the work itself (a job's id, kind and attempt), before the ids. */
    private readonly bindings: Record<string, unknown> = {},
  ) {
    this.requestId = ids.requestId;
    this.correlationId = ids.correlationId;
    this.tenantId = ids.tenantId;
    this.submissionId = ids.submissionId;
  }

  /** The base logger with this work's ids bound. */
  get log(): Logger {
    this.logger ??= this.base.child({ ...this.bindings, ...definedIds(this) });
    return this.logger;
  }

  /** Adds ids learnt during the work; lines logged from then on carry them. */
  add(ids: WorkIds): void {
    for (const key of ID_KEYS) {
      const value = ids[key];
      if (value !== undefined && value !== null) this[key] = value;
    }
    this.logger = undefined;
  }
}

const storage = new AsyncLocalStorage<WorkContext>();

/** A context for `ids`, whose logger is `base` with those ids bound. */
export function workContext(
  base: Logger,
  clock: Clock,
  ids: WorkIds,
  bindings?: Record<string, unknown>,
): WorkContext {
  return new WorkContext(base, clock, ids, bindings);
}

/** Runs `fn` (and everything it starts) inside `context`. */
export function runInContext<T>(context: WorkContext, fn: () => T): T {
  return storage.run(context, fn);
}

/**
 * Adds ids learnt during the work (the tenant once authenticated, the submission once stored) to
 * the current context, so later lines carry them.
 */
export function addToContext(ids: WorkIds): void {
  storage.getStore()?.add(ids);
}
