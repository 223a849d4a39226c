import type { Provenance } from '../types.js';

/** A derived model input together with how it came to be, so reports can say so. */
export interface Derived<T> {
  value: T;
  provenance: Provenance;
}
