import type { KeysetPosition } from '../store/tenant-access.js';

/** What a list's page asks of the account's data: `limit` items after `after`, within the window. */
export interface PageRead {
  limit: number;
  after: KeysetPosition | undefined;
  from: Date | undefined;
  to: Date | undefined;
}
