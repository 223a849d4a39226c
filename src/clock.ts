/**
 * The service's one source of time. Everything that stamps, schedules or expires something
 * reads it (the queue, the pipeline steps, webhook signatures, download links, the API-key
 * cache, maintenance), so a test injects one clock and moves it instead of sleeping.
 */
export type Clock = () => Date;

export const systemClock: Clock = () => new Date();
