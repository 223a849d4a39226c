import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { cliFor } from '../helpers/cli.js';
import { waitUntil } from '../helpers/pipeline.js';
import { freePort } from '../helpers/processes.js';
import {
  bodyFor,
  createAccount,
  postSubmission,
  startTestService,
  type TestService,
} from '../helpers/service.js';

/**
 * The README's callback walkthrough: the example receiver, registered through the CLI, gets a
 * verified result.ready and reads the result with the partner's API key.
 */
describe('README walkthrough with a callback', () => {
  let service: TestService;
  let receiver: ChildProcessWithoutNullStreams | undefined;

  afterAll(async () => {
    if (receiver) {
      receiver.kill();
      await once(receiver, 'exit');
    }
    await service.stop();
  });

  it('receives a verified result.ready and reads the result with it', async () => {
    service = await startTestService({ WEBHOOK_ALLOW_INSECURE: 'true' });
    const account = await createAccount(service);
    const port = await freePort();
    const set = await cliFor(service, [
      'webhooks',
      'set',
      '--partner',
      account.partnerId,
      '--url',
      `http://127.0.0.1:${port}/hooks/healthspan`,
    ]);
    expect(set.code, set.stderr).toBe(0);

    receiver = spawn(
      process.execPath,
      [path.resolve(import.meta.dirname, '../../examples/webhook-receiver.mjs')],
      {
        env: {
          ...process.env,
          PORT: String(port),
          HEALTHSPAN_SIGNING_SECRET: set.json!.signingSecret as string,
          HEALTHSPAN_API_KEY: account.apiKey,
          HEALTHSPAN_BASE_URL: service.url,
        },
      },
    );
    const logs: Array<Record<string, unknown>> = [];
    createInterface({ input: receiver.stdout }).on('line', (line) => logs.push(JSON.parse(line)));
    createInterface({ input: receiver.stderr }).on('line', (line) => logs.push({ stderr: line }));
    await waitUntil(
      async () => logs.some((l) => l.msg === 'webhook receiver listening'),
      10_000,
      'the receiver',
    );

    const res = await postSubmission(service, bodyFor(account), { apiKey: account.apiKey });
    expect(res.status).toBe(202);
    const read = await waitUntil(
      async () => logs.find((l) => l.msg === 'result read'),
      30_000,
      'the result read',
    );
    const received = logs.find((l) => l.msg === 'event received') as { event: { submissionId: string } };
    expect(received.event.submissionId).toBe(res.json.submissionId);
    expect(read).toMatchObject({ status: 'completed' });
    expect((read.outcomes as unknown[]).length).toBe(4);
    expect(logs.filter((l) => l.msg === 'delivery rejected')).toEqual([]);
  });
});
