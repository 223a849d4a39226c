import { msOf, type SkewedClock } from './clock.js';
import { waitUntil } from './pipeline.js';
import type { TestService } from './service.js';

/**
 * Once the account's (only) delivery has failed attempt `attempt`, moves the service's clock to
 * its retry: schedules are tested without waiting for real time to pass.
 */
export async function retryDue(
  service: TestService,
  clock: SkewedClock,
  tenantId: string,
  attempt: number,
  timeoutMs = 30_000,
): Promise<void> {
  const row = await waitUntil(
    async () => {
      const r = await service.store.driver.db
        .selectFrom('jobs')
        .select(['status', 'attempts', 'run_at'])
        .where('type', '=', 'webhook.deliver')
        .where('tenant_id', '=', tenantId)
        .executeTakeFirst();
      return r?.status === 'retrying' && r.attempts === attempt && r;
    },
    timeoutMs,
    `attempt ${attempt} to fail`,
  );
  clock.advance(Math.max(0, msOf(row.run_at) - clock.ms()) + 1);
}
