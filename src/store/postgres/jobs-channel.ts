/**
 * The channel on which PostgreSQL announces jobs ready to claim: the trigger of migration 0005
 * sends on it and every worker process's listener (`job-listener.ts`) listens on it. Renaming it
 * needs a migration that replaces the trigger's function.
 */
export const JOBS_CHANNEL = 'healthspan_jobs';
