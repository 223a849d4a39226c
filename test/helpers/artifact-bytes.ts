import type { RunningService } from '../../src/service.js';

/**
 * An artifact's stored bytes as a test reaches them behind the service's back, on whichever
 * store holds them: the database (`artifact_contents`) or the object store (ARTIFACT_STORE).
 */
export function storedBytes(service: RunningService, artifactId: string): Promise<Buffer | undefined> {
  return service.store.system.artifacts.get(artifactId);
}

/** Replaces the stored bytes (the row and its sha256 stay as they are). */
export function alterStoredBytes(service: RunningService, artifactId: string, body: Buffer): Promise<void> {
  return service.store.system.artifacts.restore(artifactId, body);
}

/** Loses the stored bytes (the row stays, still `available`). */
export async function loseStoredBytes(service: RunningService, artifactId: string): Promise<void> {
  const artifacts = service.store.system.artifacts;
  if (!artifacts.inDatabase) return artifacts.delete([artifactId]);
  await service.store.driver.db
    .deleteFrom('artifact_contents')
    .where('artifact_id', '=', artifactId)
    .execute();
}
