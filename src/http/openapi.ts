import { stringify } from 'yaml';
import { createDocument, type ZodOpenApiObject } from 'zod-openapi';
import { artifactPaths } from './routes/artifacts.js';
import { probePaths } from './routes/probe.js';
import { resultPaths } from './routes/results.js';
import { submissionPaths } from './routes/submissions.js';
import { supportPaths } from './routes/support.js';

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
        'ten-year wellbeing outcomes (informational, not a diagnosis) with signed report downloads.',
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'Support', description: 'Unauthenticated liveness, readiness and this description' },
      { name: 'Partner', description: 'Authenticated partner operations' },
    ],
    security: [{ ApiKeyHeader: [] }, { BearerAuth: [] }],
    components: {
      securitySchemes: {
        ApiKeyHeader: { type: 'apiKey', in: 'header', name: 'X-Api-Key' },
        BearerAuth: { type: 'http', scheme: 'bearer', description: 'The same API key as a bearer token' },
      },
    },
    paths: { ...supportPaths, ...probePaths, ...submissionPaths, ...resultPaths, ...artifactPaths },
  };
  cachedJson = createDocument(spec);
  return cachedJson;
}

export function openApiYaml(): string {
  cachedYaml ??= stringify(openApiDocument());
  return cachedYaml;
}
