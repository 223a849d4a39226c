import fs from 'node:fs';
import path from 'node:path';
import type { Reporter, SerializedError, TestModule } from 'vitest/node';

export interface ProjectSummary {
  files: number;
  passed: number;
  failed: number;
  skipped: number;
  /** Sum of the files' test and hook time (they run in parallel, so more than the wall time). */
  ms: number;
}

export const SUMMARY_FILE = path.resolve(import.meta.dirname, '../../test-output/test-summary.json');

/**
 * Writes what each project ran to test-output/test-summary.json, so CI can check that the
 * PostgreSQL tests actually ran (none skipped) rather than trusting an exit code alone.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(
    modules: ReadonlyArray<TestModule>,
    unhandledErrors: ReadonlyArray<SerializedError> = [],
  ): void {
    printUnhandled(unhandledErrors);
    const projects: Record<string, ProjectSummary> = {};
    const files: { file: string; ms: number }[] = [];
    for (const module of modules) {
      const name = module.project.name || 'default';
      projects[name] ??= { files: 0, passed: 0, failed: 0, skipped: 0, ms: 0 };
      const p = projects[name];
      p.files += 1;
      const ms = Math.round(module.diagnostic().duration);
      p.ms += ms;
      files.push({ file: `${name} ${path.relative(process.cwd(), module.moduleId)}`, ms });
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === 'passed') p.passed += 1;
        else if (state === 'failed') p.failed += 1;
        else p.skipped += 1;
      }
    }
    fs.mkdirSync(path.dirname(SUMMARY_FILE), { recursive: true });
    // The slowest files, to see where the CI time goes.
    const slowest = files.sort((a, b) => b.ms - a.ms).slice(0, 30);
    fs.writeFileSync(SUMMARY_FILE, `${JSON.stringify({ projects, slowest }, null, 2)}\n`);
  }
}

/**
 * Unhandled errors again, last, in a few lines each: CI keeps only the tail of a run's output,
 * and vitest prints them before its summary, where a long run's tail no longer reaches.
 */
function printUnhandled(errors: ReadonlyArray<SerializedError>): void {
  if (errors.length === 0) return;
  const lines = [`${errors.length} unhandled error(s) in this run:`];
  for (const e of errors) {
    const where = (e as { VITEST_TEST_PATH?: string }).VITEST_TEST_PATH;
    lines.push(
      `- ${e.name ?? 'Error'}: ${e.message}${where ? ` (while ${path.relative(process.cwd(), where)} ran)` : ''}`,
    );
    for (const frame of (e.stack ?? '').split('\n').slice(1, 8)) lines.push(`    ${frame.trim()}`);
  }
  process.stderr.write(`${lines.join('\n')}\n`);
}
