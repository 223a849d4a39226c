import { createTestDatabase, type TestDatabase, testStoreKind } from './database.js';
import { tempDataDir } from './dirs.js';
import { cli, type ServiceProcess, serveProcess, stopProcess } from './processes.js';
import { TestReceiver } from './receiver.js';

export interface Deployment {
  /** The processes: `all` on SQLite; an `api` and a `worker` on PostgreSQL. */
  processes: ServiceProcess[];
  api: ServiceProcess;
  receiver: TestReceiver;
  partnerId: string;
  apiKey: string;
  signingSecret: string;
  stop(): Promise<void>;
}

/**
 * The service as an operator runs it, on the store under test: its own processes started with
 * `healthspan-admin serve`, an account made with the CLI, callbacks going to a real loopback receiver.
 * `perProcess` adds settings to each process (its metrics port, say).
 */
export async function startDeployment(
  env: Record<string, string>,
  perProcess: (role: ServiceProcess['role']) => Promise<Record<string, string>> = async () => ({}),
): Promise<Deployment> {
  const receiver = new TestReceiver();
  const hook = await receiver.start();
  let database: TestDatabase | undefined;
  const processes: ServiceProcess[] = [];
  const stop = async () => {
    await Promise.all(processes.map((p) => stopProcess(p)));
    await receiver.stop();
    await database?.drop();
  };
  try {
    database = testStoreKind() === 'postgres' ? await createTestDatabase() : undefined;
    const base: Record<string, string> = {
      ...(database ? { DATABASE_URL: database.url } : {}),
      DATA_DIR: tempDataDir(),
      MIGRATE_ON_START: 'false',
      WEBHOOK_ALLOW_INSECURE: 'true',
      RATE_LIMIT_PER_MINUTE: '0',
      RENDER_THREADS: '1',
      ...env,
    };
    await cli(base, ['migrate']);
    const quick = await cli(base, ['quickstart', '--name', 'Telemetry']);
    const hookSet = await cli(base, [
      'webhooks',
      'set',
      '--partner',
      quick.partnerId as string,
      '--url',
      hook,
    ]);
    const roles: Array<ServiceProcess['role']> = database ? ['api', 'worker'] : ['all'];
    for (const role of roles)
      processes.push(await serveProcess(role, { ...base, ...(await perProcess(role)) }));
    return {
      processes,
      api: processes[0]!,
      receiver,
      partnerId: quick.partnerId as string,
      apiKey: quick.apiKey as string,
      signingSecret: hookSet.signingSecret as string,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
