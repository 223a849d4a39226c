import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { API_MODES, type ApiMode } from '../domain/mode.js';
import { ENDPOINT_STATUSES, GAUGED_JOB_STATES, METRIC_CATALOG, type MetricKey } from './catalog.js';
import { observe } from './events.js';

/** One count of the queue: jobs of one type in one state, and the oldest due one's time. */
export interface QueueCount {
  /** The mode of the job's account: sandbox work shares the queue but is counted apart. */
  mode: ApiMode;
  type: string;
  state: string;
  count: number;
  /** The run time of the oldest job of this type and state that is due and unclaimed. */
  oldestDueAt: Date | null;
}

export interface MetricsSources {
  /** The queue by type and state: one query, run at most once per `queueCacheMs`. */
  queue(): Promise<QueueCount[]>;
  /** Callback endpoints by mode and status (one small query per scrape); none when not given. */
  endpoints?(): Promise<Array<{ mode: ApiMode; status: string; count: number }>>;
  /** What `/ready` answers: true for 200. */
  ready(): Promise<boolean>;
  /** For the age of the oldest due job. */
  now(): Date;
  /** The database's position in the erasure ledger (entries applied); none when not given. */
  ledgerPosition?(): Promise<number>;
  /** When the newest backup in BACKUP_DIR was taken (none yet: when the process started); not given without BACKUP_DIR. */
  lastBackupAt?(): number | undefined;
  /** Erasures replayed at this process's start, before the registry existed. */
  replayedAtStart?: number;
  /** The job types this service runs: each reported (0) before its first job. */
  jobTypes: readonly string[];
  info: { version: string; role: string; store: string };
}

const BUCKETS = {
  http: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  job: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
  pipeline: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800],
  attempt: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  delivery: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 900, 3600, 14400, 86400],
  commit: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1],
  batch: [1, 2, 4, 8, 16, 32, 64, 128, 256],
  render: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
} as const;

function spec<K extends MetricKey>(key: K) {
  const m = METRIC_CATALOG[key];
  return { name: m.name, help: m.help, labelNames: [...m.labels] as string[] };
}

const MISNAMED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

/**
 * The queue is read at most once a second however many scrapers ask, and, when reading it is
 * slow (a backlog of many thousand jobs makes it a scan of them), at most once per hundred times
 * the last read took: a scrape never spends more than about 1 % of a core on it.
 */
const QUEUE_CACHE_MS = 1000;
const QUEUE_COST_FACTOR = 100;

/** The series fed by telemetry events, registered on `r` in the exposition's order. */
function eventSeries(r: Registry) {
  const histogram = <K extends MetricKey>(key: K, buckets: readonly number[]) =>
    new Histogram({ ...spec(key), buckets: [...buckets], registers: [r] });
  return {
    httpRequests: new Counter({ ...spec('httpRequests'), registers: [r] }),
    httpDuration: histogram('httpDuration', BUCKETS.http),
    submissions: new Counter({ ...spec('submissions'), registers: [r] }),
    jobDuration: histogram('jobDuration', BUCKETS.job),
    rescues: new Counter({ ...spec('jobRescues'), registers: [r] }),
    slaBreaches: new Counter({ ...spec('slaBreaches'), registers: [r] }),
    pipelineLatency: histogram('pipelineLatency', BUCKETS.pipeline),
    attempts: new Counter({ ...spec('webhookAttempts'), registers: [r] }),
    attemptDuration: histogram('webhookAttemptDuration', BUCKETS.attempt),
    deliveryLatency: histogram('webhookDeliveryLatency', BUCKETS.delivery),
    commitDuration: histogram('dbCommitDuration', BUCKETS.commit),
    commitBatch: histogram('dbCommitBatchSize', BUCKETS.batch),
    render: histogram('renderDuration', BUCKETS.render),
    objects: new Counter({ ...spec('objectStoreOperations'), registers: [r] }),
    ledgerAppends: new Counter({ ...spec('ledgerAppends'), registers: [r] }),
    ledgerRefusals: new Counter({ ...spec('ledgerRefusals'), registers: [r] }),
    erasuresReplayed: new Counter({ ...spec('erasuresReplayed'), registers: [r] }),
    backups: new Counter({ ...spec('backups'), registers: [r] }),
    backupLeftovers: new Counter({ ...spec('backupLeftovers'), registers: [r] }),
  };
}

/** Feeds the event series from the telemetry events; returns the unsubscribe. */
function observeEvents(series: ReturnType<typeof eventSeries>): () => void {
  const { httpRequests, httpDuration, submissions, jobDuration, rescues, slaBreaches, pipelineLatency } =
    series;
  const { attempts, attemptDuration, deliveryLatency, commitDuration, commitBatch, render, objects } = series;
  // Pre-made children for the one hot series: a label lookup per request is measurable.
  const httpChildren = new Map<string, { count: Counter.Internal; time: Histogram.Internal<string> }>();
  return observe({
    'http.request': (e) => {
      const key = `${e.method} ${e.route} ${e.status}`;
      let child = httpChildren.get(key);
      if (!child) {
        child = {
          count: httpRequests.labels(e.method, e.route, String(e.status)),
          time: httpDuration.labels(e.method, e.route),
        };
        httpChildren.set(key, child);
      }
      child.count.inc();
      child.time.observe(e.seconds);
    },
    'submission.answered': (e) => submissions.inc({ mode: e.mode, outcome: e.outcome, code: e.code }),
    'job.attempt': (e) => jobDuration.observe({ type: e.type, outcome: e.outcome }, e.seconds),
    'job.rescued': (e) => rescues.inc(e.count),
    'submission.finished': (e) => {
      if (e.slaDeadlineMs !== null && e.finishedAtMs > e.slaDeadlineMs) slaBreaches.inc();
      if (e.status === 'completed') pipelineLatency.observe((e.finishedAtMs - e.receivedAtMs) / 1000);
    },
    'webhook.attempt': (e) => {
      attempts.inc({ mode: e.mode, outcome: e.outcome });
      attemptDuration.observe(e.seconds);
      if (e.deliveredAfterSeconds !== null) deliveryLatency.observe(e.deliveredAfterSeconds);
    },
    'db.commit': (e) => {
      commitDuration.observe(e.seconds);
      commitBatch.observe(e.units);
    },
    'report.rendered': (e) => render.observe({ type: e.type }, e.seconds),
    'artifact.object': (e) => objects.inc({ operation: e.operation, outcome: e.outcome }, e.count),
    'ledger.appended': (e) => series.ledgerAppends.inc({ kind: e.kind }),
    'erasures.replayed': (e) => series.erasuresReplayed.inc(e.erasures),
    'backup.finished': (e) => series.backups.inc({ outcome: e.outcome }),
    'ledger.refused': (e) => series.ledgerRefusals.inc({ reason: e.reason }),
    'backup.leftovers': (e) => series.backupLeftovers.inc(e.files),
  });
}

/**
 * This process's Prometheus registry: the series of `catalog.ts`, fed by the telemetry events,
 * the queue and readiness gauges read at scrape time, and prom-client's process and Node
 * metrics (event-loop lag included). Created only when METRICS_PORT is set.
 */
export class ServiceMetrics {
  readonly registry = new Registry();
  private readonly unsubscribe: () => void;
  private queueRead: { at: number; counts: Promise<QueueCount[]> } | undefined;
  private queueReadMs = 0;

  constructor(private readonly sources: MetricsSources) {
    const r = this.registry;
    collectDefaultMetrics({ register: r });
    // Gauges named like counters: Prometheus's lint (promtool check metrics) rejects them.
    for (const name of MISNAMED_DEFAULTS) r.removeSingleMetric(name);
    const series = eventSeries(r);
    this.queueGauges(r);
    const self = this;
    new Gauge({
      ...spec('ready'),
      registers: [r],
      async collect() {
        this.set((await self.sources.ready().catch(() => false)) ? 1 : 0);
      },
    });
    if (sources.endpoints) this.endpointGauge(r, sources.endpoints);
    this.backupGauges(r);
    series.erasuresReplayed.inc(sources.replayedAtStart ?? 0);
    new Gauge({ ...spec('buildInfo'), registers: [r] }).set(sources.info, 1);
    this.unsubscribe = observeEvents(series);
  }

  /** The exposition, in Prometheus text format. */
  async exposition(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }

  close(): void {
    this.unsubscribe();
    this.registry.clear();
  }

  private queueCounts(): Promise<QueueCount[]> {
    const at = performance.now();
    const maxAge = Math.max(QUEUE_CACHE_MS, QUEUE_COST_FACTOR * this.queueReadMs);
    if (!this.queueRead || at - this.queueRead.at >= maxAge) {
      const counts = this.sources.queue();
      this.queueRead = { at, counts };
      counts.then(
        () => {
          this.queueReadMs = performance.now() - at;
        },
        () => {},
      );
    }
    return this.queueRead.counts;
  }

  /** The ledger position and the newest backup's time, read at scrape; nothing when unknown. */
  private backupGauges(r: Registry): void {
    const { ledgerPosition, lastBackupAt } = this.sources;
    new Gauge({
      ...spec('ledgerEntries'),
      registers: [r],
      async collect() {
        this.reset();
        const position = await ledgerPosition?.().catch(() => undefined);
        if (position !== undefined) this.set(position);
      },
    });
    new Gauge({
      ...spec('backupLastSuccess'),
      registers: [r],
      collect() {
        this.reset();
        const at = lastBackupAt?.();
        if (at !== undefined) this.set(at);
      },
    });
  }

  /**
   * Every (mode, status) pair, zero when none, so an alert on disabled endpoints sees 0 rather
   * than no data; a failed read reports nothing.
   */
  private endpointGauge(r: Registry, read: NonNullable<MetricsSources['endpoints']>): void {
    new Gauge({
      ...spec('webhookEndpoints'),
      registers: [r],
      async collect() {
        this.reset();
        const counts = await read().catch(() => undefined);
        if (!counts) return;
        for (const mode of API_MODES) for (const status of ENDPOINT_STATUSES) this.set({ mode, status }, 0);
        for (const c of counts) this.set({ mode: c.mode, status: c.status }, c.count);
      },
    });
  }

  /**
   * Every (type, state) pair is reported, zero when empty, so a series does not vanish when its
   * queue drains (an alert on it would see no data instead of 0). A failed read reports nothing:
   * an unknown queue is not an empty one.
   */
  private queueGauges(r: Registry): void {
    const self = this;
    const known = new Set<string>(this.sources.jobTypes);
    new Gauge({
      ...spec('jobs'),
      registers: [r],
      async collect() {
        this.reset();
        const counts = await self.queueCounts().catch(() => undefined);
        if (!counts) return;
        for (const c of counts) known.add(c.type);
        for (const mode of API_MODES)
          for (const type of known) for (const state of GAUGED_JOB_STATES) this.set({ mode, type, state }, 0);
        for (const c of counts) this.set({ mode: c.mode, type: c.type, state: c.state }, c.count);
      },
    });
    new Gauge({
      ...spec('jobQueueAge'),
      registers: [r],
      async collect() {
        this.reset();
        const counts = await self.queueCounts().catch(() => undefined);
        if (!counts) return;
        const now = self.sources.now().getTime();
        const oldest = new Map<string, number>();
        for (const type of known) oldest.set(type, 0);
        for (const c of counts) {
          if (c.oldestDueAt === null) continue;
          const age = Math.max(0, (now - c.oldestDueAt.getTime()) / 1000);
          oldest.set(c.type, Math.max(oldest.get(c.type) ?? 0, age));
        }
        for (const [type, age] of oldest) this.set({ type }, age);
      },
    });
  }
}
