import { emit } from '../telemetry/events.js';

/**
 * Counts operations on report bytes kept outside the database (an object store, or the embedded
 * store's files): `healthspan_object_store_operations_total{operation,outcome}`.
 */
export function countObjectOperation(
  operation: 'write' | 'read' | 'delete' | 'redirect',
  outcome: 'ok' | 'missing' | 'error',
  count = 1,
): void {
  emit('artifact.object', { operation, outcome, count });
}
