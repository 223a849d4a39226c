import { z } from 'zod';
import { ROTATION_ACTIVATE_IN } from '../webhooks/rotation.js';

const isoDateTime = z.iso.datetime({ offset: true });

export const endpointPutSchema = z
  .strictObject({
    url: z.string().min(1).max(2048).meta({
      description:
        'Your receiver: https:// with a public host name (checked now, and again at every connection)',
      example: 'https://hooks.example.com/healthspan',
    }),
    receiverKey: z
      .strictObject({
        header: z.string().min(1).max(64).optional().meta({
          description: 'The header it is sent in (default X-Api-Key), e.g. Authorization',
        }),
        value: z.string().min(1).max(1024).meta({
          description: 'The key your receiver expects; 1 to 1024 printable characters without spaces',
        }),
      })
      .optional()
      .meta({
        description:
          'A key of your receiver, sent with every delivery; it is stored sealed and never shown again. Left out: none is sent.',
      }),
  })
  .meta({ id: 'WebhookEndpointPut' });

export const rotateSecretSchema = z
  .strictObject({
    activateIn: z
      .string()
      .max(16)
      .optional()
      .meta({
        description: `When the new secret starts signing, from now: a duration such as 0s, 500ms, 30m, ${ROTATION_ACTIVATE_IN} (the default), up to 30d. Until then the current secret signs and the new one signs too, so a receiver can switch at any moment.`,
        example: ROTATION_ACTIVATE_IN,
      }),
  })
  .meta({ id: 'WebhookSecretRotation' });

export const endpointSchema = z
  .object({
    mode: z
      .enum(['live', 'test'])
      .meta({ description: 'The mode of the key: each mode has its own endpoint' }),
    url: z.string(),
    status: z.enum(['enabled', 'disabled']).meta({
      description:
        'disabled after every delivery attempt failed for WEBHOOK_DISABLE_AFTER (5 days by default): events are held, not dropped, until it is enabled and a recovery sends them',
    }),
    disabledAt: isoDateTime.nullable(),
    disabledReason: z.string().nullable().meta({ description: 'Why it was disabled, in plain language' }),
    failingSince: isoDateTime.nullable().meta({
      description: 'The first failed attempt since the last delivered one; null while deliveries succeed',
    }),
    receiverKey: z
      .object({ header: z.string() })
      .nullable()
      .meta({ description: 'The header your receiver key is sent in (never the key); null when none' }),
    signingSecrets: z
      .array(
        z.object({
          secretId: z.uuid(),
          activatesAt: isoDateTime,
          active: z.boolean().meta({ description: 'The secret deliveries are signed with now' }),
        }),
      )
      .meta({ description: 'Newest first: ids and activation times, never a secret' }),
    last24Hours: z
      .object({ delivered: z.number().int(), failed: z.number().int() })
      .meta({ description: 'Delivery attempts of the last 24 hours by outcome' }),
  })
  .meta({ id: 'WebhookEndpoint' });

export const endpointPutAnswerSchema = endpointSchema
  .extend({
    signingSecret: z.string().optional().meta({
      description:
        'The signing secret (whsec_…), only when this request made one (a new endpoint): shown once, store it now',
    }),
  })
  .meta({ id: 'WebhookEndpointSet' });

export const rotatedSchema = z
  .object({
    signingSecret: z.string().meta({ description: 'The new secret (whsec_…): shown once, store it now' }),
    activatesAt: isoDateTime,
  })
  .meta({ id: 'WebhookSecretRotated' });

export const endpointExample: z.input<typeof endpointSchema> = {
  mode: 'live',
  url: 'https://hooks.example.com/healthspan',
  status: 'enabled',
  disabledAt: null,
  disabledReason: null,
  failingSince: null,
  receiverKey: { header: 'Authorization' },
  signingSecrets: [
    {
      secretId: '0190a7e0-51a3-7c11-9d2e-3f4a5b6c7d8e',
      activatesAt: '2026-11-21T12:00:00.000Z',
      active: true,
    },
  ],
  last24Hours: { delivered: 41, failed: 2 },
};

export const disabledExample: z.input<typeof endpointSchema> = {
  ...endpointExample,
  status: 'disabled',
  disabledAt: '2026-11-26T09:00:00.000Z',
  disabledReason: 'Every delivery attempt failed from 2026-11-21T08:55:00.000Z to 2026-11-26T09:00:00.000Z.',
  failingSince: '2026-11-21T08:55:00.000Z',
  last24Hours: { delivered: 0, failed: 7 },
};

/** Shown in examples only: the form of a secret, not one. */
export const SECRET_EXAMPLE = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
