import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDataDir } from './dirs.js';
import { waitUntil } from './pipeline.js';
import { freePort } from './processes.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
export const ALERT_RULES = path.join(ROOT, 'ops/prometheus/healthspan-alerts.yml');

export interface Sample {
  metric: Record<string, string>;
  value: number;
}

/**
 * A real Prometheus server (Debian's `prometheus`) on loopback, scraping the given targets every
 * second with the repository's alert rules loaded, queried through its HTTP API.
 */
export class TestPrometheus {
  private constructor(
    readonly url: string,
    private readonly child: ChildProcess,
    private readonly dir: string,
    private readonly output: string[],
  ) {}

  static async start(targets: string[]): Promise<TestPrometheus> {
    const dir = tempDataDir();
    const port = await freePort();
    const config = [
      'global:',
      '  scrape_interval: 1s',
      '  scrape_timeout: 1s',
      '  evaluation_interval: 1s',
      'rule_files:',
      `  - ${JSON.stringify(ALERT_RULES)}`,
      'scrape_configs:',
      '  - job_name: healthspan',
      '    static_configs:',
      `      - targets: ${JSON.stringify(targets)}`,
      '',
    ].join('\n');
    fs.writeFileSync(path.join(dir, 'prometheus.yml'), config);
    const child = spawn(
      'prometheus',
      [
        `--config.file=${path.join(dir, 'prometheus.yml')}`,
        `--storage.tsdb.path=${path.join(dir, 'tsdb')}`,
        `--web.listen-address=127.0.0.1:${port}`,
        '--log.level=warn',
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const output: string[] = [];
    child.stdout?.on('data', (c: Buffer) => output.push(c.toString()));
    child.stderr?.on('data', (c: Buffer) => output.push(c.toString()));
    const prometheus = new TestPrometheus(`http://127.0.0.1:${port}`, child, dir, output);
    await waitUntil(
      async () => {
        if (child.exitCode !== null) throw new Error(`prometheus exited: ${output.join('')}`);
        return fetch(`${prometheus.url}/-/ready`).then(
          (r) => r.status === 200,
          () => false,
        );
      },
      30_000,
      'prometheus to become ready',
    );
    return prometheus;
  }

  /** An instant query: each series with its value. */
  async query(expr: string): Promise<Sample[]> {
    const res = await fetch(`${this.url}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await res.json()) as {
      status: string;
      error?: string;
      data?: { result: Array<{ metric: Record<string, string>; value: [number, string] }> };
    };
    if (body.status !== 'success')
      throw new Error(`query ${expr} failed: ${body.error}; prometheus said: ${this.output.join('')}`);
    return (body.data?.result ?? []).map((r) => ({ metric: r.metric, value: Number(r.value[1]) }));
  }

  /** The single value of `expr` once it satisfies `ok` (Prometheus scrapes once a second). */
  async valueOnce(expr: string, ok: (value: number) => boolean): Promise<number> {
    const found = await waitUntil(
      async () => {
        const samples = await this.query(expr);
        return samples.length === 1 && ok(samples[0]!.value) ? { value: samples[0]!.value } : undefined;
      },
      30_000,
      `the query ${expr} to match`,
    );
    return found.value;
  }

  /** The rule groups Prometheus loaded, with each alert's state. */
  async alerts(): Promise<Array<{ name: string; state: string }>> {
    const res = await fetch(`${this.url}/api/v1/rules?type=alert`);
    const body = (await res.json()) as {
      data: { groups: Array<{ rules: Array<{ name: string; state: string }> }> };
    };
    return body.data.groups.flatMap((g) => g.rules.map((r) => ({ name: r.name, state: r.state })));
  }

  async stop(): Promise<void> {
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise((r) => this.child.once('exit', r));
      this.child.kill('SIGTERM');
      await exited;
    }
    fs.rmSync(this.dir, { recursive: true, force: true });
  }
}
