import { Writable } from 'node:stream';
import { setImmediate as tick } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { systemClock } from '../src/clock.js';
import { addToContext, outsideContext, runInContext, workContext } from '../src/context.js';
import { createLogger } from '../src/logger.js';

function capture() {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const l of String(chunk).split('\n')) if (l.trim() !== '') lines.push(JSON.parse(l));
      cb();
    },
  });
  return { logger: createLogger('info', sink), lines };
}

describe('the work context', () => {
  it('puts its ids on every line written while it runs, by any logger, after awaits, and ids added later', async () => {
    const { logger, lines } = capture();
    const other = logger.child({ component: 'deep' });
    const context = workContext(
      logger,
      systemClock,
      { requestId: 'r-1', correlationId: 'c-1' },
      { jobId: 'j-1' },
    );
    await runInContext(context, async () => {
      await tick();
      other.info('before');
      addToContext({ tenantId: 't-1', submissionId: 's-1' });
      await Promise.resolve();
      other.info({ tenantId: 'own' }, 'after');
      outsideContext(() => logger.info('outside'));
    });
    logger.info('later');
    const byMsg = Object.fromEntries(lines.map((l) => [l.msg, l]));
    expect(byMsg.before).toMatchObject({
      component: 'deep',
      requestId: 'r-1',
      correlationId: 'c-1',
      jobId: 'j-1',
    });
    expect(byMsg.before).not.toHaveProperty('tenantId');
    // The line's own field wins over the context's.
    expect(byMsg.after).toMatchObject({ requestId: 'r-1', tenantId: 'own', submissionId: 's-1' });
    for (const msg of ['outside', 'later']) {
      expect(Object.keys(byMsg[msg]!).filter((k) => /Id$/.test(k))).toEqual([]);
    }
  });

  it('keeps redacting what a line must never carry', () => {
    const { logger, lines } = capture();
    runInContext(workContext(logger, systemClock, { requestId: 'r-2' }), () =>
      logger.info({ apiKey: 'hs_live_secret', body: { glucose: 5.1 } }, 'line'),
    );
    expect(lines[0]).toMatchObject({ requestId: 'r-2', apiKey: '[redacted]', body: '[redacted]' });
  });
});
