import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isUuid } from '../../domain/ids.js';
import { fhirBundleOf } from '../../operations/fhir-export.js';
import type { TenantAccess } from '../../store/tenant-access.js';
import { artifactBytes, HTML_CSP } from '../artifact-bytes.js';
import { ApiError } from '../errors.js';
import { submissionDetail } from '../presenters.js';
import { presentResult } from '../result-body.js';
import { findSubmissions, parseSubmissionListQuery } from '../submission-list.js';
import type { SubmissionPage } from '../submission-list-item.js';
import { type ConsoleOptions, frameOf, html, tenantOfState } from './context.js';
import { callbackNow, hourlyCounts, windowStats } from './overview-stats.js';
import { Layout, page } from './pages/layout.js';
import { Overview } from './pages/overview.js';
import { Submission } from './pages/submission.js';
import { type SubmissionFilters, Submissions } from './pages/submissions.js';
import { consoleState } from './signed-in.js';

const DAY_MS = 24 * 3_600_000;
/** The most submissions one overview counts per window (the newest). */
const OVERVIEW_LIMIT = 50_000;

async function overviewData(tenant: TenantAccess, now: Date) {
  const [day, week, health] = await Promise.all([
    tenant.activity(new Date(now.getTime() - DAY_MS), OVERVIEW_LIMIT),
    tenant.activity(new Date(now.getTime() - 7 * DAY_MS), OVERVIEW_LIMIT),
    tenant.callbackHealth(),
  ]);
  return {
    day: windowStats(day, now),
    week: windowStats(week, now),
    hours: hourlyCounts(day.submissions, now),
    callbacks: callbackNow(health),
  };
}

/** The filters as the form sent them: empty fields are no filter. */
export function filtersOf(query: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (typeof value === 'string' && value.trim() !== '') out[name] = value.trim();
  }
  return out;
}

/** A `400`'s field errors by parameter name (`query.status` → `status`). */
export function fieldErrorsOf(error: unknown): Record<string, string> | undefined {
  if (!(error instanceof ApiError) || error.statusCode !== 400 || !error.details) return undefined;
  if (Array.isArray(error.details)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, messages] of Object.entries(error.details.fieldErrors)) {
    out[key.replace(/^query\./, '')] = messages[0] ?? 'Not valid.';
  }
  return out;
}

async function submissionsPage(request: FastifyRequest, reply: FastifyReply, opts: ConsoleOptions) {
  const state = consoleState(request);
  const filters = filtersOf(request.query);
  let list: SubmissionPage | undefined;
  let errors: Record<string, string> = {};
  try {
    const query = parseSubmissionListQuery({ ...filters, limit: filters.limit ?? '25' });
    list = await findSubmissions(tenantOfState(state), query, state.origin, opts);
  } catch (error) {
    const fields = fieldErrorsOf(error);
    if (!fields) throw error;
    errors = fields;
    reply.code(400);
  }
  const shown: SubmissionFilters = filters;
  return html(
    reply,
    page(
      'Submissions',
      <Layout frame={frameOf(state, 'submissions')} title="Submissions">
        <Submissions filters={shown} page={list} errors={errors} />
      </Layout>,
    ),
  );
}

async function submissionPage(
  request: FastifyRequest<{ Params: { id: string } }>,
  reply: FastifyReply,
  opts: ConsoleOptions,
) {
  const state = consoleState(request);
  const tenant = tenantOfState(state);
  const id = request.params.id;
  const record = isUuid(id) ? await tenant.submissions.get(id, state.origin) : undefined;
  if (!record) throw ApiError.notFound('No submission with this id in this account and mode.');
  const now = opts.clock();
  const result = record.resultId ? await tenant.results.get(record.resultId, state.origin) : undefined;
  const callback = result ? await tenant.events.ofSubmission(record.submissionId, state.origin) : undefined;
  const title = `Submission ${record.partnerSubmissionId}`;
  return html(
    reply,
    page(
      title,
      <Layout frame={frameOf(state, 'submissions')} title={title}>
        <Submission
          detail={submissionDetail(record, now)}
          result={result ? presentResult(result, opts.links, now) : undefined}
          callback={callback}
          manageCsrf={state.session.scope === 'manage' ? state.csrf : undefined}
          callbackSent={(request.query as Record<string, unknown>).callback === 'sent'}
        />
      </Layout>,
    ),
  );
}

/** The console's pages: each reads through the session's account's `TenantAccess`, audited. */
export async function consolePageRoutes(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  app.get('/', async (request, reply) => {
    const state = consoleState(request);
    const data = await overviewData(tenantOfState(state), opts.clock());
    return html(
      reply,
      page(
        'Overview',
        <Layout frame={frameOf(state, 'overview')} title="Overview">
          <Overview data={data} />
        </Layout>,
      ),
    );
  });
  app.get('/submissions', (request, reply) => submissionsPage(request, reply, opts));
  app.get<{ Params: { id: string } }>('/submissions/:id', (request, reply) =>
    submissionPage(request, reply, opts),
  );
  // The html report, for the sandboxed preview frame of a submission's page: the report's own
  // policy (inline styles only, nothing loaded, nothing run), framed by the console alone.
  app.get<{ Params: { id: string } }>('/artifacts/:id/preview', async (request, reply) => {
    const state = consoleState(request);
    const tenant = tenantOfState(state);
    const id = request.params.id;
    const meta = isUuid(id) ? await tenant.artifacts.downloadable(id) : undefined;
    if (!meta?.contentType.startsWith('text/html')) throw ApiError.notFound('No report page with this id.');
    const body = await artifactBytes(tenant, meta, request.log);
    await tenant.artifacts.downloaded(id, state.origin);
    return reply
      .type(meta.contentType)
      .header(
        'content-security-policy',
        `${HTML_CSP.replace("frame-ancestors 'none'", "frame-ancestors 'self'")}; sandbox`,
      )
      .header('x-frame-options', 'SAMEORIGIN')
      .send(body);
  });
  app.get<{ Params: { id: string } }>('/results/:id/fhir', async (request, reply) => {
    const state = consoleState(request);
    const id = request.params.id;
    const source = isUuid(id) ? await tenantOfState(state).results.exportSource(id, state.origin) : undefined;
    if (!source) throw ApiError.notFound('No result with this id in this account and mode.');
    return reply
      .type('application/fhir+json')
      .header('content-disposition', `attachment; filename="result-${id}.fhir.json"`)
      .send(JSON.stringify(fhirBundleOf(source)));
  });
}
