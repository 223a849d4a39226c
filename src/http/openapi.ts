import { stringify } from 'yaml';
import { createDocument, type ZodOpenApiObject } from 'zod-openapi';
import { markerTableMarkdown } from '../domain/submission/marker-table.js';
import { consoleSessionPaths } from './console/link-route.js';
import { resultReadyWebhook } from './openapi-webhooks.js';
import { artifactPaths } from './routes/artifacts.js';
import { auditPaths } from './routes/audit-events.js';
import { erasurePaths } from './routes/erasures.js';
import { eventResendPaths } from './routes/event-resend.js';
import { eventReadPaths } from './routes/events.js';
import { fhirPaths } from './routes/fhir.js';
import { listenPaths } from './routes/listen-docs.js';
import { probePaths } from './routes/probe.js';
import { resultPaths } from './routes/results.js';
import { submissionListPaths } from './routes/submission-list.js';
import { submissionPaths } from './routes/submissions.js';
import { supportPaths } from './routes/support.js';
import { testEventPaths } from './routes/test-events.js';
import { webhookEndpointPaths } from './routes/webhook-endpoint.js';

export const API_VERSION = '0.1.0';

let cachedJson: ReturnType<typeof createDocument> | undefined;
let cachedYaml: string | undefined;

/** Built from the same zod schemas that validate requests and describe responses. */
export function openApiDocument(): ReturnType<typeof createDocument> {
  if (cachedJson) return cachedJson;
  const spec: ZodOpenApiObject = {
    openapi: '3.1.0',
    info: {
      title: 'healthspan partner API',
      version: API_VERSION,
      description:
        'Submit a de-identified questionnaire and 14-marker blood panel, follow its processing, and read ' +
        'ten-year wellbeing outcomes (informational, not a diagnosis) with signed report downloads.\n\n' +
        'Every answer carries X-Request-Id. Errors use one envelope, `{ error: { code, message, requestId, ' +
        'correlationId?, details? } }`; each response lists the codes it can carry. Besides those, any path ' +
        'answers 405 METHOD_NOT_ALLOWED (with Allow) to a method it does not have, and an unknown path 404 NOT_FOUND.\n\n' +
        'When a result is ready the service can also call you: see the `result.ready` webhook.\n\n' +
        '## The marker panel\n\nSend each of the 14 codes once, in its unit, within its default range ' +
        '(or the range sourceMetadata.markerRanges gives). Aliases and any letter case are accepted.\n\n' +
        markerTableMarkdown(),
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [
      {
        url: '{baseUrl}',
        description: 'The service, at the base URL it is deployed under',
        variables: {
          baseUrl: {
            default: 'http://localhost:8080',
            description: "Scheme, host, port and any path prefix (the service's PUBLIC_BASE_URL)",
          },
        },
      },
    ],
    tags: [
      { name: 'Support', description: 'Unauthenticated liveness, readiness and this description' },
      { name: 'Partner', description: 'Authenticated partner operations' },
      { name: 'Callbacks', description: 'Requests the service sends to you' },
      {
        name: 'Events',
        description: 'Your callback events and their attempts: find them, send one again, recover a window',
      },
      {
        name: 'Test mode',
        description:
          'Operations for test keys (hs_test_…): test data is kept apart from live data (docs/sandbox.md)',
      },
    ],
    security: [{ ApiKeyHeader: [] }, { BearerAuth: [] }],
    components: {
      securitySchemes: {
        ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        BearerAuth: { type: 'http', scheme: 'bearer', description: 'The same API key as a bearer token' },
      },
    },
    webhooks: { 'result.ready': resultReadyWebhook },
    paths: {
      ...supportPaths,
      ...probePaths,
      ...submissionPaths,
      ...resultPaths,
      ...fhirPaths,
      ...artifactPaths,
      ...erasurePaths,
      ...auditPaths,
      ...testEventPaths,
      ...webhookEndpointPaths,
      ...consoleSessionPaths,
      ...eventReadPaths,
      ...eventResendPaths,
      ...listenPaths,
      // Creating and listing submissions live in two route files: one path with both operations.
      '/v1/submissions': { ...submissionPaths['/v1/submissions'], ...submissionListPaths['/v1/submissions'] },
    },
  };
  cachedJson = createDocument(spec, { override: dropRedundantPatterns });
  return cachedJson;
}

const FORMATS_WITH_PATTERNS = new Set(['uuid', 'date-time', 'date']);

/**
 * zod writes the regular expression it validates with next to `format` (166 characters for a
 * UUID, up to 305 for a timestamp); the format already says it, and generators choke on them.
 */
function dropRedundantPatterns({ jsonSchema }: { jsonSchema: Record<string, unknown> }): void {
  if (typeof jsonSchema.format === 'string' && FORMATS_WITH_PATTERNS.has(jsonSchema.format)) {
    delete jsonSchema.pattern;
  }
}

export function openApiYaml(): string {
  // Shared schema objects written out each time: aliases would make readers refuse the file.
  cachedYaml ??= stringify(openApiDocument(), { aliasDuplicateObjects: false });
  return cachedYaml;
}
