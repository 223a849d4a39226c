// npm run bench:door [-- --rounds 9 --iterations 4000]
// The CPU the event loop spends per accepted submission outside HTTP and the database: what
// ingest does before it stores (src/ingest/: decode and read the JSON text, the headers' schema,
// the schema and conditional rules, the partner and panel checks and the normalised text, the two
// request hashes), then the ids (request id, submission, job, audit event) and the rows the store
// writes.
// Each figure is the median over rounds of CPU time (process.cpuUsage) per request, after a
// warm-up, for the example body and a few varied valid ones; a bare JSON.parse of the same text
// is the scale, measured in alternate rounds, so the ratio holds on a busy machine.
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { checkPanel, parseSubmission } from '../dist/domain/submission/index.js';
import { sha256Hex } from '../dist/hash.js';
import { checkSubmission } from '../dist/ingest/check.js';
import { readHeaders } from '../dist/ingest/headers.js';
import { idempotencyHashes } from '../dist/ingest/idempotency.js';
import { readJsonText } from '../dist/ingest/read-json.js';
import { newId } from '../dist/store/ids.js';
import { firstJob, idempotencyRow, jobRow, submissionRow } from '../dist/store/rows.js';

const root = path.resolve(import.meta.dirname, '..');
// The embedded default's documents: SQLite stores a body as its text (`Driver.storedDocument`).
const TEXT_DOCUMENTS = { storedDocument: (text) => text };
const { values } = parseArgs({
  options: {
    rounds: { type: 'string', default: '9' },
    iterations: { type: 'string', default: '4000' },
    // Only the totals (one line per body), for quick before/after runs.
    brief: { type: 'boolean', default: false },
  },
});
const ROUNDS = Number(values.rounds);
const ITERATIONS = Number(values.iterations);

const example = JSON.parse(fs.readFileSync(path.join(root, 'examples/submission.json'), 'utf8'));

/** Valid variants a partner sends: aliases and unit spellings, ranges, documents-only, escapes. */
function variants() {
  const out = [];
  out.push({
    name: 'example (pretty, as in examples/)',
    text: fs.readFileSync(path.join(root, 'examples/submission.json'), 'utf8'),
  });
  out.push({ name: 'example (compact, as bench:ingest)', text: JSON.stringify(example) });

  const aliases = structuredClone(example);
  const alias = {
    ALBUMIN: 'alb',
    CALCIUM: 'Ca',
    CHOL: 'total cholesterol',
    CYSTATIN_C: 'Cystatin-C',
    URATE: 'UA',
  };
  for (const m of aliases.markers) {
    if (alias[m.code]) m.code = alias[m.code];
    if (m.unit === 'µmol/L') m.unit = 'umol/L';
    m.observedAt = '2026-11-19';
  }
  aliases.subject.demographics = { sexAtBirth: 'male', birthYear: 1970, ethnicity: 'south_asian_indian' };
  aliases.subject.history.smoking = {
    status: 'current',
    currentFrequency: 'heavy',
    currentCigsPerDay: 20,
    startAge: 17,
  };
  aliases.options = {
    requestedOutputs: ['score', 'json', 'json'],
    requestedOutcomes: ['renal.wellbeing', 'wellbeing.kidney', 'cardiovascular_wellbeing_10y'],
  };
  aliases.sourceMetadata.markerRanges = {
    ALBUMIN: { unit: 'g/L', lowerBound: 30, upperBound: 55 },
    HDL_CHOLESTEROL: { unit: 'mmol/L', lowerBound: 0.5, upperBound: 3 },
  };
  aliases.sourceMetadata.facilityId = 'clinic-42';
  aliases.clinicalExtensions = { visit: { sequence: 3, notes: ['fasting'] }, assay: 'v2' };
  out.push({ name: 'aliases, markerRanges, extensions', text: JSON.stringify(aliases) });

  // Some partners' encoders escape every non-ASCII character (the reader's escaped-text case).
  out.push({
    name: 'example with \\u escapes (µ as \\u00b5)',
    text: JSON.stringify(example).replace(/µ/g, '\\u00b5'),
  });

  const documents = structuredClone(example);
  delete documents.markers;
  delete documents.subject.familyHistory;
  documents.reportDocuments = [
    {
      documentType: 'lab_report',
      effectiveAt: '2026-11-01',
      summaryText: 'Routine check; fasting sample, no concerns raised.',
    },
    {
      documentType: 'gp_letter',
      effectiveAt: '2026-10-12T10:00:00+01:00',
      summaryText: 'Follow-up in 6 months. Lipids reviewed.',
    },
  ];
  documents.questionnaire = { sleepHours: 7, exerciseDaysPerWeek: 3, diet: 'mixed' };
  out.push({ name: 'documents only, questionnaire', text: JSON.stringify(documents, null, 1) });
  return out;
}

const POLICY = { slaSeconds: 3600, maxAttempts: 5 };
const TTL_MS = 24 * 3600 * 1000;
const TENANT = '0195f3a0-6c1e-7a3b-8e2f-1d2c3b4a5e6f';
let sequence = 0;

/**
 * Requests' headers as Node hands them over (what a partner's client sends), made before the
 * rounds: Node makes them for the HTTP layer, not for the door.
 */
const HEADERS = Array.from({ length: 256 }, (_, i) => ({
  host: 'localhost:8080',
  'content-type': 'application/json',
  'content-length': '1747',
  'x-api-key': 'hs_live_bench',
  'x-correlation-id': 'bench',
  'idempotency-key': `bench-${i}`,
}));
const headersOf = (i) => HEADERS[i % HEADERS.length];

/** Everything per accepted request; returns something derived so no step is dead code. */
function door(bytes) {
  const requestId = randomUUID();
  // What src/ingest/accept.ts does before it stores.
  const text = bytes.toString('utf8');
  const read = readJsonText(text);
  if (!read.ok) throw new Error(JSON.stringify(read.errors));
  const headers = readHeaders(headersOf(sequence++));
  if (!headers.ok) throw new Error(JSON.stringify(headers.fieldErrors));
  const now = new Date();
  const checked = checkSubmission(read.value, { now, namedPartnerId: example.partnerId });
  if (!checked.ok) throw new Error(JSON.stringify(checked.refusal));
  const normalised = checked.submission;
  const values = {
    tenantId: TENANT,
    partnerId: example.partnerId,
    partnerSubmissionId: normalised.partnerSubmissionId,
    partnerSubjectId: normalised.partnerSubjectId,
    correlationId: headers.value['x-correlation-id'],
    requestId,
    originalBody: text,
    normalisedBody: checked.normalisedBody,
    documentCount: normalised.reportDocuments?.length ?? 0,
    markerCount: normalised.markers.length,
  };
  const { keyHash, requestHash } = idempotencyHashes(headers.value['idempotency-key'], text);
  // The store's part (ingest.ts, audit.ts): ids and rows, no statement.
  const submissionId = newId();
  const jobId = newId();
  const claim = idempotencyRow(
    { partnerId: values.partnerId, keyHash, requestHash, submissionId, jobId },
    TTL_MS,
    now,
  );
  const job = jobRow(firstJob({ jobId, submissionId }, values, POLICY, now), now, null);
  const submission = submissionRow(submissionId, values, now, TEXT_DOCUMENTS);
  const audit = {
    id: newId(),
    tenant_id: TENANT,
    occurred_at: now.toISOString(),
    action: 'submission.created',
    resource_type: 'submission',
    resource_id: submissionId,
    actor_type: 'api_key',
    actor_key_id: 'key',
    request_id: requestId,
    correlation_id: 'bench',
    outcome: 'success',
  };
  return claim.key_hash.length + job.id.length + submission.subject_id.length + audit.id.length;
}

/** CPU µs of one call of `fn` over one round. */
function round(fn) {
  const start = process.cpuUsage();
  let sink = 0;
  for (let i = 0; i < ITERATIONS; i++) sink += fn(i);
  const used = process.cpuUsage(start);
  if (sink === -1) console.log('');
  return (used.user + used.system) / ITERATIONS;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** CPU µs per call of `fn`, median of the rounds, after one warm-up round. */
function measure(fn) {
  round(fn);
  const rounds = [];
  for (let i = 0; i < ROUNDS; i++) rounds.push(round(fn));
  return median(rounds);
}

/**
 * The door and a bare JSON.parse of the same text, round by round, so both see the same share
 * of a busy machine: their ratio moves less than either figure.
 */
function measurePair(door, parse) {
  round(door);
  round(parse);
  const doors = [];
  const parses = [];
  const ratios = [];
  for (let i = 0; i < ROUNDS; i++) {
    const d = round(door);
    const p = round(parse);
    doors.push(d);
    parses.push(p);
    ratios.push(d / p);
  }
  return { door: median(doors), parse: median(parses), ratio: median(ratios) };
}

/** The same steps one by one, on prepared inputs, to see where the total goes. */
function stages(bytes) {
  const text = bytes.toString('utf8');
  const value = readJsonText(text).value;
  const now = new Date();
  const parsedValue = parseSubmission(value, { now }).value;
  const panelValue = checkPanel(parsedValue).value;
  return [
    ['decode utf8', () => bytes.toString('utf8').length],
    ['readJsonText', () => (readJsonText(text).ok ? 1 : 0)],
    ['headers (schema)', (i) => (readHeaders(headersOf(i)).ok ? 1 : 0)],
    ['parseSubmission', () => (parseSubmission(value, { now }).ok ? 1 : 0)],
    ['checkPanel', () => (checkPanel(parsedValue).ok ? 1 : 0)],
    ['normalisedBody stringify', () => JSON.stringify(panelValue).length],
    ['hashes (key, body)', (i) => sha256Hex(`bench-${i}`).length + sha256Hex(text).length],
    [
      'ids (request + 3 uuid v7)',
      () => randomUUID().length + newId().length + newId().length + newId().length,
    ],
    [
      'rows (idempotency, job, submission)',
      () => {
        const v = {
          tenantId: TENANT,
          partnerId: example.partnerId,
          partnerSubmissionId: 's',
          partnerSubjectId: 'subj-1',
          correlationId: 'c',
          requestId: 'r',
          originalBody: text,
          normalisedBody: '',
          documentCount: 0,
          markerCount: 14,
        };
        const ids = { submissionId: 'a', jobId: 'b' };
        const claim = idempotencyRow({ partnerId: 'p', keyHash: 'k', requestHash: 'h', ...ids }, TTL_MS, now);
        const job = jobRow(firstJob(ids, v, POLICY, now), now, null);
        return (
          claim.created_at.length +
          job.id.length +
          submissionRow('a', v, now, TEXT_DOCUMENTS).subject_id.length
        );
      },
    ],
  ];
}

const bodies = variants().map((b) => ({ ...b, bytes: Buffer.from(b.text, 'utf8') }));
console.log(
  `bench:door  median of ${ROUNDS} rounds x ${ITERATIONS} requests, CPU µs per request (node ${process.version})`,
);
const totals = [];
const ratios = [];
for (const { name, text, bytes } of bodies) {
  const {
    door: total,
    parse,
    ratio,
  } = measurePair(
    () => door(bytes),
    () => (JSON.parse(text) ? 1 : 0),
  );
  totals.push(total);
  ratios.push(ratio);
  console.log(`\n${name}: ${bytes.length} bytes`);
  console.log(
    `  ${'door (everything below, end to end)'.padEnd(38)} ${total.toFixed(2).padStart(7)} µs  (${ratio.toFixed(2)} x JSON.parse)`,
  );
  console.log(`  ${'bare JSON.parse, for scale'.padEnd(38)} ${parse.toFixed(2).padStart(7)} µs`);
  if (values.brief) continue;
  for (const [stage, fn] of stages(bytes)) {
    console.log(`    ${stage.padEnd(36)} ${measure(fn).toFixed(2).padStart(7)} µs`);
  }
}
const mean = (xs) => xs.reduce((s, x) => s + x, 0) / xs.length;
console.log(
  `\nmean over the ${totals.length} bodies: ${mean(totals).toFixed(2)} µs per request, ${mean(ratios).toFixed(2)} x JSON.parse`,
);
