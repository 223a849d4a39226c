import type { Config } from '../config.js';
import { loadOrCreateSecret } from '../store/secrets.js';
import { SecretBox } from './secret-box.js';

export { registerWebhookJobs } from './deliver-job.js';
export { SecretBox } from './secret-box.js';

/** The box sealing webhook secrets: the configured master key, or one generated into DATA_DIR. */
export function secretBoxFor(config: Pick<Config, 'webhookSecretsKey' | 'dataDir'>): SecretBox {
  return new SecretBox(config.webhookSecretsKey ?? loadOrCreateSecret(config.dataDir, 'webhook-secrets.key'));
}
