import type { FastifyBaseLogger } from 'fastify';
import { sha256Hex } from '../hash.js';
import { recreateArtifact } from '../pipeline/recreate-artifact.js';
import {
  type DownloadableArtifact,
  ObjectStoreUnavailableError,
  type TenantAccess,
} from '../store/tenant-access.js';
import { ApiError } from './errors.js';

/** Inline styles and SVG only: the report page may load nothing and run nothing. */
export const HTML_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/** Seconds a download waits before trying again while the object store is unavailable. */
const OBJECT_STORE_RETRY_AFTER_SECONDS = 30;

/** The stored bytes; a `503` with `Retry-After` while the object store does not answer. */
async function storedBytes(meta: DownloadableArtifact): Promise<Buffer | undefined> {
  try {
    return await meta.read();
  } catch (error) {
    if (!(error instanceof ObjectStoreUnavailableError)) throw error;
    throw new ApiError(
      503,
      'SERVICE_UNAVAILABLE',
      `This report cannot be read just now; try again in ${OBJECT_STORE_RETRY_AFTER_SECONDS} seconds.`,
      undefined,
      { 'retry-after': String(OBJECT_STORE_RETRY_AFTER_SECONDS) },
    );
  }
}

/**
 * An artifact's stored bytes, checked against their hash; missing or altered ones are rendered
 * again (the signed download and the console's preview).
 */
export async function artifactBytes(
  tenant: TenantAccess,
  meta: DownloadableArtifact,
  log: FastifyBaseLogger,
): Promise<Buffer> {
  const body = await storedBytes(meta);
  if (body && sha256Hex(body) === meta.sha256) return body;
  log.warn({ artifactId: meta.artifactId }, 'artifact bytes missing or altered; rendering them again');
  const again = await recreateArtifact(tenant.artifacts, meta.artifactId);
  if (!again) throw ApiError.notFound('This artifact is not available.');
  return again;
}
