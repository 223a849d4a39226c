import { EventEmitter } from 'node:events';

/**
 * Wake-ups from outside this process (PostgreSQL's LISTEN/NOTIFY): started when the first worker
 * subscribes, stopped when the last one leaves, so only processes that run a worker listen.
 */
export interface WakeSource {
  /** Starts delivering wake-ups to `wake`; returns how to stop. */
  start(wake: () => void): () => Promise<void>;
}

/**
 * Wakes idle workers: whoever commits new jobs in this process calls `notify()` after the commit,
 * and a `WakeSource`, when the store has one, carries other processes' commits. Workers keep a
 * poll as the safety net for anything missed (a notification sent while the listener
 * reconnected, a retry whose time has come).
 */
export class JobNotifier {
  private readonly emitter = new EventEmitter();
  private stopSource: (() => Promise<void>) | undefined;
  private stopped: Promise<void> = Promise.resolve();

  constructor(private readonly source?: WakeSource) {}

  notify(): void {
    this.emitter.emit('jobs');
  }

  subscribe(listener: () => void): () => void {
    this.emitter.on('jobs', listener);
    if (this.source && !this.stopSource) this.stopSource = this.source.start(() => this.notify());
    let subscribed = true;
    return () => {
      if (!subscribed) return;
      subscribed = false;
      this.emitter.off('jobs', listener);
      if (this.emitter.listenerCount('jobs') === 0) this.stopListening();
    };
  }

  /** Stops the wake source, if one runs, and waits until it has. */
  async close(): Promise<void> {
    this.stopListening();
    await this.stopped;
  }

  private stopListening(): void {
    const stop = this.stopSource;
    if (!stop) return;
    this.stopSource = undefined;
    const previous = this.stopped;
    this.stopped = Promise.all([previous, stop()]).then(() => {});
  }
}
