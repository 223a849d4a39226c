import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { METRIC_CATALOG } from '../../src/telemetry/catalog.js';

/**
 * The operator files in ops/: the alert rules are checked and unit-tested by the real promtool,
 * and every expression in them and in the Grafana dashboard may only name series a healthspan
 * process exports, so renaming a metric in the catalog breaks this test instead of an alert
 * quietly never firing.
 */

const ROOT = path.resolve(import.meta.dirname, '../..');
const RULES = 'ops/prometheus/healthspan-alerts.yml';
const RULE_TESTS = 'ops/prometheus/healthspan-alerts.test.yml';
const DASHBOARD = 'ops/grafana/healthspan-dashboard.json';

const ALERTS = [
  'HealthspanNotReady',
  'HealthspanMetricsAbsent',
  'HealthspanQueueBacklog',
  'HealthspanSlaBreaches',
  'HealthspanCallbacksFailing',
  'HealthspanWebhookEndpointsDisabled',
  'HealthspanJobRescues',
  'HealthspanJobsFailed',
  'HealthspanHighErrorRate',
  'HealthspanSlowIngest',
  'HealthspanEventLoopLag',
  'HealthspanBackupStale',
  'HealthspanErasuresRefused',
];

// Grafana's import form replaces this with the data source the operator picks.
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana's placeholder, not a JavaScript template
const DS_INPUT = '${DS_PROMETHEUS}';

const ROWS = ['Front door', 'Queue', 'Pipeline', 'Callbacks', 'Database', 'Process'];

/** prom-client's default metrics and Prometheus's own `up`: the only series used beyond the catalog. */
const DEFAULT_METRICS = [
  'up',
  'process_cpu_seconds_total',
  'process_resident_memory_bytes',
  'nodejs_heap_size_used_bytes',
  'nodejs_eventloop_lag_p99_seconds',
];

// A histogram has no series under its bare name, only these three.
const KNOWN_METRICS = new Set<string>([
  ...DEFAULT_METRICS,
  ...Object.values(METRIC_CATALOG).flatMap((m): string[] =>
    m.type === 'histogram' ? [`${m.name}_bucket`, `${m.name}_sum`, `${m.name}_count`] : [m.name],
  ),
]);

// Digits included: without them `nodejs_eventloop_lag_p99_seconds` would match nothing at all and
// slip through unchecked.
const METRIC_NAME = /\b(healthspan_[a-z0-9_]+|process_[a-z0-9_]+|nodejs_[a-z0-9_]+|up)\b/g;

function metricNames(expr: string): string[] {
  return [...new Set(expr.match(METRIC_NAME) ?? [])];
}

/** The metric names `expr` uses that no healthspan process exports. */
function unknownMetrics(expr: string): string[] {
  return metricNames(expr).filter((name) => !KNOWN_METRICS.has(name));
}

function promtool(...args: string[]): string {
  try {
    return execFileSync('promtool', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (error) {
    // execFileSync's own message leaves out stdout, which is where promtool explains a failure.
    const { stdout, stderr, message } = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`promtool ${args.join(' ')} failed: ${message}\n${stdout ?? ''}${stderr ?? ''}`);
  }
}

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

interface RuleTests {
  rule_files: string[];
  tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
}

interface Target {
  expr?: string;
  refId: string;
}

interface Panel {
  id: number;
  type: string;
  title: string;
  targets?: Target[];
  panels?: Panel[];
}

interface Dashboard {
  uid: string;
  title: string;
  schemaVersion: number;
  __inputs: { name: string; type: string; pluginId: string }[];
  templating: { list: { name: string; type: string }[] };
  panels: Panel[];
}

/** Every `datasource` reference in the dashboard, wherever Grafana keeps it (panel, target, variable). */
function datasources(node: unknown): { type?: string; uid?: string }[] {
  if (Array.isArray(node)) return node.flatMap(datasources);
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) =>
    key === 'datasource' && typeof value === 'object' && value !== null
      ? [value as { type?: string; uid?: string }]
      : datasources(value),
  );
}

function read(file: string): string {
  return fs.readFileSync(path.join(ROOT, file), 'utf8');
}

const groups = (YAML.parse(read(RULES)) as { groups: { name: string; rules: Rule[] }[] }).groups;
const rules = groups.flatMap((g) => g.rules);
const dashboard = JSON.parse(read(DASHBOARD)) as Dashboard;
// Collapsed rows keep their panels inside the row; open rows have them at the top level.
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const queryPanels = panels.filter((p) => p.type !== 'row');

describe('metric name check', () => {
  it('reports a made-up metric and a histogram used without its suffix', () => {
    expect(unknownMetrics('sum(rate(healthspan_nope_total[5m]))')).toEqual(['healthspan_nope_total']);
    expect(unknownMetrics('rate(healthspan_pipeline_latency_seconds[5m])')).toEqual([
      'healthspan_pipeline_latency_seconds',
    ]);
    expect(unknownMetrics('rate(healthspan_pipeline_latency_seconds_count[5m]) > 0 or up == 0')).toEqual([]);
  });

  it('finds names with digits in them', () => {
    expect(metricNames('nodejs_eventloop_lag_p99_seconds > 0.2')).toEqual([
      'nodejs_eventloop_lag_p99_seconds',
    ]);
    expect(unknownMetrics('nodejs_eventloop_lag_p95_seconds > 0.2')).toEqual([
      'nodejs_eventloop_lag_p95_seconds',
    ]);
  });
});

describe('alert rules', () => {
  it('pass promtool check rules, which counts every rule', () => {
    expect(promtool('check', 'rules', RULES)).toContain(`SUCCESS: ${ALERTS.length} rules found`);
  });

  it('pass their promtool unit tests', () => {
    expect(promtool('test', 'rules', RULE_TESTS)).toContain('SUCCESS');
  });

  it('are the alerts an operator is told about, in one group', () => {
    expect(groups.map((g) => g.name)).toEqual(['healthspan']);
    expect(rules.map((r) => r.alert)).toEqual(ALERTS);
  });

  it.each(ALERTS)('%s has a severity, a summary and a description', (name) => {
    const rule = rules.find((r) => r.alert === name)!;
    expect(['page', 'ticket']).toContain(rule.labels?.severity);
    expect(rule.annotations?.summary).toMatch(/\S/);
    expect(rule.annotations?.description).toMatch(/Check first:/);
  });

  it.each(ALERTS)('%s uses only metrics a healthspan process exports', (name) => {
    const { expr } = rules.find((r) => r.alert === name)!;
    expect(metricNames(expr)).not.toEqual([]);
    expect(unknownMetrics(expr)).toEqual([]);
  });

  it('are each unit-tested both firing and staying quiet', () => {
    const tests = YAML.parse(read(RULE_TESTS)) as RuleTests;
    expect(tests.rule_files).toEqual([path.basename(RULES)]);
    const cases = tests.tests.flatMap((t) => t.alert_rule_test ?? []);
    for (const name of ALERTS) {
      const own = cases.filter((c) => c.alertname === name);
      expect(
        own.some((c) => c.exp_alerts.length > 0),
        `${name} fires in a test`,
      ).toBe(true);
      expect(
        own.some((c) => c.exp_alerts.length === 0),
        `${name} stays quiet in a test`,
      ).toBe(true);
    }
  });
});

describe('Grafana dashboard', () => {
  it('is importable with a Prometheus chosen at import', () => {
    expect(dashboard.uid).toBe('healthspan');
    expect(dashboard.title).toBe('healthspan');
    expect(dashboard.schemaVersion).toBe(39);
    expect(dashboard.__inputs).toContainEqual(
      expect.objectContaining({ name: 'DS_PROMETHEUS', type: 'datasource', pluginId: 'prometheus' }),
    );
    // Any other uid would name a data source that exists only in the Grafana it was exported from.
    const used = datasources(dashboard).filter((d) => d.type !== 'grafana');
    expect(used.length).toBeGreaterThan(queryPanels.length);
    expect(new Set(used.map((d) => `${d.type} ${d.uid}`))).toEqual(new Set([`prometheus ${DS_INPUT}`]));
    expect(dashboard.templating.list.map((v) => v.name)).toContain('instance');
  });

  it('has the rows an operator walks through, and unique panel ids', () => {
    expect(panels.filter((p) => p.type === 'row').map((p) => p.title)).toEqual(ROWS);
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('queries only metrics a healthspan process exports, filtered by $instance', () => {
    const exprs = queryPanels.flatMap((p) =>
      (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr ?? '' })),
    );
    expect(exprs.length).toBeGreaterThanOrEqual(queryPanels.length);
    for (const { panel, expr } of exprs) {
      expect(metricNames(expr), panel).not.toEqual([]);
      expect(unknownMetrics(expr), panel).toEqual([]);
      expect(expr, panel).toContain('instance=~"$instance"');
    }
  });

  it('queries are valid PromQL', () => {
    // promtool has no command that parses a bare expression; recording rules are the next best thing.
    const exprs = queryPanels.flatMap((p) => (p.targets ?? []).map((t) => t.expr ?? ''));
    const asRules = exprs.map((expr, i) => ({
      record: `dashboard:expr_${i}`,
      expr: expr.replace(/\$__rate_interval|\$__interval|\$__range/g, '5m').replace(/\$instance/g, '.+'),
    }));
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'healthspan-dashboard-'));
    try {
      const file = path.join(dir, 'dashboard-rules.yml');
      fs.writeFileSync(file, YAML.stringify({ groups: [{ name: 'dashboard', rules: asRules }] }));
      expect(promtool('check', 'rules', file)).toContain(`SUCCESS: ${asRules.length} rules found`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
