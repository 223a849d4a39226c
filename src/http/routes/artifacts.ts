import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ZodOpenApiPathsObject } from 'zod-openapi';
import type { Clock } from '../../clock.js';
import { addToContext } from '../../context.js';
import { isUuid } from '../../domain/ids.js';
import {
  type ArtifactGateway,
  type DownloadableArtifact,
  ObjectStoreUnavailableError,
} from '../../store/tenant-access.js';
import { artifactBytes, HTML_CSP } from '../artifact-bytes.js';
import type { DownloadLinks } from '../download-links.js';
import { ApiError } from '../errors.js';
import { ANY_ROUTE, errorResponses, successHeaders } from '../openapi-errors.js';

export const artifactPaths: ZodOpenApiPathsObject = {
  '/v1/artifacts/{artifactId}/content': {
    get: {
      operationId: 'downloadArtifact',
      summary: 'Download a report artifact through its signed link',
      description:
        'Use the downloadUrl from a result read as it is. The signature is the credential, so no API key is sent; ' +
        'links expire (see access.expiresAt) and each result read issues fresh ones.',
      tags: ['Partner'],
      security: [],
      requestParams: {
        path: z.object({ artifactId: z.uuid() }),
        query: z.object({
          expires: z.string().meta({ description: 'Expiry, Unix seconds' }),
          signature: z.string().meta({ description: 'HMAC signature issued by the service' }),
        }),
      },
      responses: {
        '200': {
          description: 'The artifact bytes (application/json, text/html or application/pdf)',
          headers: {
            ...successHeaders(true),
            'Content-Disposition': {
              description: 'attachment for JSON, inline for HTML and PDF, with the file name',
              required: true,
              schema: { type: 'string' },
            },
            'Cache-Control': { description: 'private, no-store', required: true, schema: { type: 'string' } },
          },
          content: {
            'application/pdf': { schema: { type: 'string', contentMediaType: 'application/pdf' } },
            'text/html': { schema: { type: 'string' } },
            'application/json': { schema: { type: 'object' } },
          },
        },
        '302': {
          description:
            'Only when the operator set ARTIFACT_DOWNLOAD=redirect: the bytes are at the presigned object-storage URL in Location, valid for 60 seconds (follow the redirect)',
          headers: {
            ...successHeaders(false),
            Location: { description: 'presigned object URL', required: true, schema: { type: 'string' } },
          },
        },
        ...errorResponses({
          codes: [
            ...ANY_ROUTE,
            'FORBIDDEN',
            'ACCOUNT_INACTIVE',
            'NOT_FOUND',
            'RATE_LIMITED',
            'SERVICE_UNAVAILABLE',
          ],
          rateLimited: true,
          retryAfterOn503: true,
          meanings: {
            ACCOUNT_INACTIVE: 'the account the artifact belongs to was deactivated',
            NOT_FOUND: 'the artifact is not available',
            RATE_LIMITED: 'too many requests from this address; wait for the Retry-After delay',
            SERVICE_UNAVAILABLE:
              'the report storage is unavailable for now; retry after the Retry-After delay',
          },
          messages: {
            RATE_LIMITED: 'Too many requests from this address (limit 120 per minute); retry after 1 minute.',
          },
        }),
      },
    },
  },
};

/** How long a redirect's presigned object URL is valid: it cannot be revoked before then. */
export const DIRECT_LINK_SECONDS = 60;

/** A presigned object URL, or undefined to serve through the service (the store unavailable too). */
async function directLink(meta: DownloadableArtifact, disposition: string): Promise<string | undefined> {
  try {
    return await meta.directLink(disposition, DIRECT_LINK_SECONDS);
  } catch (error) {
    if (!(error instanceof ObjectStoreUnavailableError)) throw error;
    return undefined;
  }
}

export async function artifactRoutes(
  app: FastifyInstance,
  opts: {
    artifacts: ArtifactGateway;
    links: DownloadLinks;
    clock: Clock;
    /** ARTIFACT_DOWNLOAD=redirect: answer with a presigned object URL when the object is there. */
    redirect: boolean;
  },
): Promise<void> {
  app.get<{ Params: { artifactId: string }; Querystring: Record<string, unknown> }>(
    '/v1/artifacts/:artifactId/content',
    async (request, reply) => {
      const id = request.params.artifactId.toLowerCase();
      const forbidden = new ApiError(
        403,
        'FORBIDDEN',
        'This download link is invalid or has expired; read the result again for a fresh link.',
      );
      if (!isUuid(id)) throw forbidden;
      const verdict = opts.links.verify(id, request.query.expires, request.query.signature, opts.clock());
      if (verdict !== 'ok') throw forbidden;
      // Key-less: the link names the artifact, whose account is looked up and then scoped to.
      const tenant = await opts.artifacts.forArtifact(id);
      const meta = await tenant?.artifacts.downloadable(id);
      if (!tenant || !meta) throw ApiError.notFound('This artifact is not available.');
      addToContext({ tenantId: tenant.tenantId });
      // A link issued before the account was deactivated dies with the account (issue 12).
      if (!meta.tenantActive) throw ApiError.accountInactive();
      const disposition = `${meta.contentType.startsWith('application/json') ? 'attachment' : 'inline'}; filename="${meta.fileName}"`;
      const direct = opts.redirect ? await directLink(meta, disposition) : undefined;
      if (direct) {
        await tenant.artifacts.downloaded(id, { actor: { type: 'download_link' }, requestId: request.id });
        return reply.code(302).header('location', direct).header('cache-control', 'private, no-store').send();
      }
      const body = await artifactBytes(tenant, meta, request.log);
      await tenant.artifacts.downloaded(id, { actor: { type: 'download_link' }, requestId: request.id });
      const content = { ...meta, body };
      reply
        .header('content-type', content.contentType)
        .header('content-disposition', disposition)
        .header('cache-control', 'private, no-store')
        .header('x-content-type-options', 'nosniff');
      if (content.contentType.startsWith('text/html')) reply.header('content-security-policy', HTML_CSP);
      return reply.send(content.body);
    },
  );
}
