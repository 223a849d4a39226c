import { z } from 'zod';
import type { ZodOpenApiPathItemObject } from 'zod-openapi';
import { resultReadyBodySchema } from '../webhooks/event-body.js';
import {
  DEFAULT_TOLERANCE_SECONDS,
  EVENT_TYPE,
  HEADER_DELIVERY_ID,
  HEADER_EVENT,
  HEADER_EVENT_ID,
  HEADER_MODE,
  HEADER_SIGNATURE,
  HEADER_TIMESTAMP,
  HEADER_WEBHOOK_ID,
  HEADER_WEBHOOK_SIGNATURE,
  HEADER_WEBHOOK_TIMESTAMP,
  SIGNATURE_VERSION,
} from '../webhooks/signing.js';
import { resultReadyExample } from './openapi-examples.js';

/** The headers of every delivery, named by the constants `signedHeaders` writes them with. */
export const deliveryHeaders = z.object({
  [HEADER_EVENT]: z.literal(EVENT_TYPE).meta({ description: 'The event kind' }),
  [HEADER_EVENT_ID]: z.uuid().meta({
    description: 'Stable across the retries of one event: deduplicate on it',
  }),
  [HEADER_DELIVERY_ID]: z.uuid().meta({ description: 'New for every delivery attempt' }),
  [HEADER_TIMESTAMP]: z
    .string()
    .regex(/^[0-9]{1,15}$/)
    .meta({ description: 'Unix seconds as decimal digits; signed, so it cannot be altered' }),
  [HEADER_SIGNATURE]: z
    .string()
    .regex(/^v1=[0-9a-f]{64}$/)
    .meta({ description: `${SIGNATURE_VERSION}= and the lowercase hex HMAC-SHA256 (see the recipe above)` }),
  [HEADER_WEBHOOK_ID]: z.uuid().meta({
    description: 'Standard Webhooks: the event id (the same as X-Healthspan-Event-Id)',
  }),
  [HEADER_WEBHOOK_TIMESTAMP]: z
    .string()
    .regex(/^[0-9]{1,15}$/)
    .meta({ description: 'Standard Webhooks: Unix seconds (the same as X-Healthspan-Timestamp)' }),
  [HEADER_WEBHOOK_SIGNATURE]: z
    .string()
    .regex(/^v1,[A-Za-z0-9+/]{43}=( v1,[A-Za-z0-9+/]{43}=)*$/)
    .meta({
      description:
        'Standard Webhooks: `v1,` and the base64 HMAC-SHA256 of `webhook-id.webhook-timestamp.body`, keyed with the base64-decoded part of the secret; space-separated, one per secret during a rotation',
    }),
  [HEADER_MODE]: z.literal('test').optional().meta({
    description:
      'Only on deliveries to your test callback, of test data (docs/sandbox.md); absent on live ones',
  }),
  'X-Api-Key': z.string().optional().meta({
    description:
      'Your receiver key, when you registered one (in this header, or in the header you named at registration); not signed',
  }),
});

const RECIPE =
  `The service POSTs this to the callback URL registered for the credential that submitted, once the ` +
  `result is ready, signed with that credential's signing secret (\`whsec_…\`).\n\n` +
  `**Verify every delivery** before trusting it:\n\n` +
  `1. Take the raw request body bytes as received (do not parse and re-serialise the JSON).\n` +
  `2. Build \`${HEADER_TIMESTAMP} + "." + raw body\`.\n` +
  `3. Compute HMAC-SHA256 of it, keyed with the whole signing secret as UTF-8 bytes.\n` +
  `4. Compare \`${SIGNATURE_VERSION}=\` + the lowercase hex digest with \`${HEADER_SIGNATURE}\` in constant time.\n` +
  `5. Reject a delivery whose timestamp is more than ${DEFAULT_TOLERANCE_SECONDS} seconds from your clock.\n\n` +
  `During a secret rotation accept both the old and the new secret. \`verifyWebhook\` from ` +
  `\`@healthspan/client\` (\`webhooks.verify\`) does all of this. Deduplicate on \`${HEADER_EVENT_ID}\`; ` +
  `\`${HEADER_DELIVERY_ID}\` is new on every attempt. Read the result with GET /v1/results/{resultId}.\n\n` +
  `Every delivery is also signed as [Standard Webhooks](https://www.standardwebhooks.com) defines ` +
  `(\`${HEADER_WEBHOOK_ID}\`, \`${HEADER_WEBHOOK_TIMESTAMP}\`, \`${HEADER_WEBHOOK_SIGNATURE}\`), so its ` +
  `libraries (\`standardwebhooks\`, \`svix\`) verify it with the same \`whsec_…\` secret.`;

export const resultReadyWebhook: ZodOpenApiPathItemObject = {
  post: {
    operationId: 'resultReady',
    summary: 'A result is ready (sent to your callback URL)',
    description: RECIPE,
    tags: ['Callbacks'],
    // The signature authenticates the service to you; X-Api-Key, when registered, is a header above.
    security: [],
    requestParams: { header: deliveryHeaders },
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: resultReadyBodySchema,
          examples: { ready: { summary: 'A completed result with a PDF report', value: resultReadyExample } },
        },
      },
    },
    responses: {
      '2XX': {
        description: 'Any 2xx acknowledges the delivery; its body is ignored. Answer quickly, then process.',
      },
      '4XX': {
        description:
          'Not acknowledged (for example 401 for a bad signature or a stale timestamp): retried on the schedule, with a new delivery id and timestamp. Redirects are not followed.',
      },
      '5XX': {
        description:
          'Not acknowledged: retried on the schedule. A timeout or a refused or reset connection counts the same.',
      },
    },
  },
};
