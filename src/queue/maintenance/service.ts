import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import { runInContext, workContext } from '../../context.js';

/** What one pass of a maintenance service did: counts by what it touched (nothing: all zero). */
export type PassReport = Record<string, number>;

/**
 * A background service that keeps the store in shape (River's `internal/maintenance`): it runs a
 * pass every `intervalMs`, and one process at a time runs a pass (each pass takes the store's
 * lock for its service, `Driver.tryExclusive`).
 */
export interface MaintenanceService {
  readonly name: string;
  readonly intervalMs: number;
  /** One pass now; tests call it directly with an injected clock. */
  runOnce(): Promise<PassReport>;
}

/**
 * Runs maintenance services on their intervals, in processes that run a worker: each at start,
 * then every interval, never two passes of one service at once. Logs what a pass did when it did
 * something, and a pass that failed (the next one tries again).
 */
export class Maintenance {
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Map<string, Promise<void>>();
  private stopped = false;

  constructor(
    private readonly services: readonly MaintenanceService[],
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  start(): void {
    for (const service of this.services) {
      const timer = setInterval(() => this.pass(service), service.intervalMs);
      timer.unref();
      this.timers.push(timer);
      this.pass(service);
    }
  }

  /** Stops the timers and waits for passes under way. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    await Promise.allSettled(this.running.values());
  }

  private pass(service: MaintenanceService): void {
    if (this.stopped || this.running.has(service.name)) return;
    const context = workContext(this.logger, this.clock, {}, { maintenance: service.name });
    const pass = runInContext(context, async () => {
      try {
        const report = await service.runOnce();
        if (Object.values(report).some((n) => n > 0)) context.log.info(report, 'maintenance pass');
      } catch (error) {
        context.log.error({ err: error }, 'maintenance pass failed; the next one tries again');
      }
    }).finally(() => this.running.delete(service.name));
    this.running.set(service.name, pass);
  }
}
