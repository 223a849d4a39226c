/**
 * What one process of the service runs: everything, only the API, or only the worker (which
 * still answers probes). The CLI's `serve --role` and the HTTP app both read it.
 */
export type ServiceRole = 'all' | 'api' | 'worker';
