import type { Config } from '../config.js';
import { SecretBox } from '../secret-box.js';
import { loadOrCreateSecret } from '../store/secrets.js';

export { SecretBox } from '../secret-box.js';
export { registerWebhookJobs } from './deliver-job.js';

/** The box sealing webhook secrets: the configured master key, or one generated into DATA_DIR. */
export function secretBoxFor(config: Pick<Config, 'webhookSecretsKey' | 'dataDir'>): SecretBox {
  return new SecretBox(config.webhookSecretsKey ?? loadOrCreateSecret(config.dataDir, 'webhook-secrets.key'));
}
