import { EventEmitter } from 'node:events';

/**
 * In-process wake-up: whoever commits new jobs calls `notify()` after the commit, and idle
 * workers claim at once instead of waiting for the next poll. The poll stays as a safety net
 * (and carries wake-ups between processes until a database notification channel replaces it).
 */
export class JobNotifier {
  private readonly emitter = new EventEmitter();

  notify(): void {
    this.emitter.emit('jobs');
  }

  subscribe(listener: () => void): () => void {
    this.emitter.on('jobs', listener);
    return () => this.emitter.off('jobs', listener);
  }
}
