import { type ChildProcess, spawn } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { runCli } from './cli.js';

const BIN = path.resolve(import.meta.dirname, '../../bin/healthspan-admin');

/** A port nothing listens on right now (the process under test binds it a moment later). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The operator CLI as a child process: its one JSON line, or a thrown error with its stderr. */
export async function cli(env: Record<string, string>, args: string[]): Promise<Record<string, unknown>> {
  const res = await runCli(env, args);
  if (res.code !== 0 || !res.json)
    throw new Error(`healthspan-admin ${args.join(' ')} failed: ${res.stderr}`);
  return res.json;
}

export interface ServiceProcess {
  role: 'api' | 'worker' | 'all';
  url: string;
  child: ChildProcess;
  output: string[];
}

/** `healthspan-admin serve --role …` in its own process, waited for until `/ready` answers 200. */
export async function serveProcess(
  role: ServiceProcess['role'],
  env: Record<string, string>,
): Promise<ServiceProcess> {
  const port = await freePort();
  const child = spawn(BIN, ['serve', '--role', role], {
    // RENDER_NICE 0: as startTestService's (a niced render thread crawls on a busy machine).
    env: {
      ...process.env,
      LOG_LEVEL: 'warn',
      HOST: '127.0.0.1',
      RENDER_NICE: '0',
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output: string[] = [];
  child.stdout?.on('data', (c: Buffer) => output.push(c.toString()));
  child.stderr?.on('data', (c: Buffer) => output.push(c.toString()));
  // A stream or process error (a pipe cut while the machine is busy) is kept with the output the
  // test shows on failure, rather than thrown into the test file as an unhandled error.
  const keep = (e: Error) => output.push(`[${role}: ${e.message}]`);
  child.on('error', keep);
  child.stdout?.on('error', keep);
  child.stderr?.on('error', keep);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serve --role ${role} exited: ${output.join('')}`);
    try {
      if ((await fetch(`${url}/ready`)).status === 200) break;
    } catch {}
    if (Date.now() > deadline) throw new Error(`serve --role ${role} not ready: ${output.join('')}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { role, url, child, output };
}

/** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
export async function stopProcess(p: ServiceProcess, graceMs = 15_000): Promise<void> {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return;
  const exited = new Promise((r) => p.child.once('exit', r));
  p.child.kill('SIGTERM');
  const timer = setTimeout(() => p.child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}
