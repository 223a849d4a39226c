import { DummyDriver, Kysely, SqliteAdapter, SqliteIntrospector, SqliteQueryCompiler } from 'kysely';
import type { Database } from '../database.js';
import { namedQuery } from '../prepared.js';
import {
  claimIdempotencyKey,
  insertAuditEvent,
  insertJob,
  insertSubmission,
  priorClaim,
} from '../statements.js';
import type { IngestStatementTexts } from './ingest-batch.js';

/**
 * The writer thread's statements, compiled on the event loop from the shared builders
 * (`statements.ts`) and sent to the thread as text and slots. The thread then loads neither
 * Kysely nor the builders: about 6 MB less heap in it (docs/performance-journal.md, issue 32).
 */
export function compileIngestStatements(): IngestStatementTexts {
  // This Kysely only compiles.
  const db = new Kysely<Database>({
    dialect: {
      createAdapter: () => new SqliteAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (k) => new SqliteIntrospector(k),
      createQueryCompiler: () => new SqliteQueryCompiler(),
    },
  });
  const text = ({ sql, parameters }: { sql: string; parameters: readonly unknown[] }) => ({
    sql,
    parameters,
  });
  return {
    claim: text(namedQuery(claimIdempotencyKey(db).compile())),
    prior: text(namedQuery(priorClaim(db).compile())),
    submission: text(namedQuery(insertSubmission(db).compile())),
    job: text(insertJob(db)),
    audit: text(insertAuditEvent(db)),
  };
}
