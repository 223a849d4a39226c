import type { JobDefinition } from './types.js';

/**
 * The job kinds a worker runs: the pipeline and the webhooks register theirs here, so the queue
 * knows them only by name and interface, never as a closed list.
 */
export class JobKinds {
  private readonly definitions = new Map<string, JobDefinition>();

  /** Adds a kind; registering one name twice is a wiring mistake, not an override. */
  register(kind: string, definition: JobDefinition): this {
    if (this.definitions.has(kind)) throw new Error(`job kind ${kind} is registered twice`);
    this.definitions.set(kind, definition);
    return this;
  }

  /** Replaces a registered kind's definition, given the current one (tests alter a step so). */
  override(kind: string, change: (current: JobDefinition) => JobDefinition): this {
    const current = this.definitions.get(kind);
    if (!current) throw new Error(`job kind ${kind} is not registered`);
    this.definitions.set(kind, change(current));
    return this;
  }

  get(kind: string): JobDefinition | undefined {
    return this.definitions.get(kind);
  }

  names(): string[] {
    return [...this.definitions.keys()];
  }

  /** A registry with only these kinds (a worker that leaves the others to another process). */
  only(kinds: readonly string[]): JobKinds {
    const subset = new JobKinds();
    for (const kind of kinds) {
      const definition = this.definitions.get(kind);
      if (!definition) throw new Error(`job kind ${kind} is not registered`);
      subset.register(kind, definition);
    }
    return subset;
  }
}
