import type { Config } from '../config.js';
import { SecretBox } from '../secret-box.js';
import { loadOrCreateSecret } from '../store/secrets.js';
import { ListenSecrets } from './listen.js';

export { SecretBox } from '../secret-box.js';
export { registerWebhookJobs } from './deliver-job.js';

/** The box sealing webhook secrets: the configured master key, or one generated into DATA_DIR. */
export function secretBoxFor(config: Pick<Config, 'webhookSecretsKey' | 'dataDir'>): SecretBox {
  return new SecretBox(masterKey(config));
}

/** The listen secrets of a process's keys, derived from the same master key (listen.ts). */
export function listenSecretsFor(config: Pick<Config, 'webhookSecretsKey' | 'dataDir'>): ListenSecrets {
  return new ListenSecrets(masterKey(config));
}

function masterKey(config: Pick<Config, 'webhookSecretsKey' | 'dataDir'>): string | Buffer {
  return config.webhookSecretsKey ?? loadOrCreateSecret(config.dataDir, 'webhook-secrets.key');
}
