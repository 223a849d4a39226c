import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { z } from 'zod';
import type { ZodOpenApiOperationObject, ZodOpenApiPathsObject } from 'zod-openapi';
import { DURATION_EXAMPLES } from '../../domain/duration.js';
import {
  EndpointInputError,
  type EndpointOwner,
  type WebhookEndpointService,
} from '../../operations/callback-endpoint.js';
import { rotationDelayMs } from '../../webhooks/rotation.js';
import { originOf, principalOf, tenantOf } from '../auth.js';
import { ApiError, type ErrorCode, parseBody } from '../errors.js';
import { errorResponses, KEYED_OPERATION, successHeaders } from '../openapi-errors.js';
import {
  disabledExample,
  endpointExample,
  endpointPutAnswerSchema,
  endpointPutSchema,
  endpointSchema,
  rotatedSchema,
  rotateSecretSchema,
  SECRET_EXAMPLE,
} from '../webhook-endpoint-schemas.js';

const PATH = '/v1/webhook-endpoint';

const NOT_FOUND_MEANING =
  'no callback endpoint is registered for the mode of this key (register one with PUT /v1/webhook-endpoint)';

/** The errors of an endpoint operation: the keyed ones and `extra`. */
function errors(extra: ErrorCode[], meanings: Partial<Record<ErrorCode, string>> = {}) {
  return errorResponses({
    ...KEYED_OPERATION,
    codes: [...KEYED_OPERATION.codes, ...extra],
    meanings: { ...KEYED_OPERATION.meanings, NOT_FOUND: NOT_FOUND_MEANING, ...meanings },
    messages: { NOT_FOUND: notConfigured('live').message },
  });
}

const BODY_ERRORS: ErrorCode[] = ['VALIDATION_ERROR', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'];

function ok(
  description: string,
  schema: z.ZodType,
  examples: Record<string, { summary: string; value: unknown }>,
) {
  return {
    description,
    headers: successHeaders(true),
    content: { 'application/json': { schema, examples } },
  };
}

const endpointExamples = {
  enabled: { summary: 'An endpoint delivering', value: endpointExample },
  disabled: { summary: 'An endpoint disabled after failing for 5 days', value: disabledExample },
};

const getOperation: ZodOpenApiOperationObject = {
  operationId: 'getWebhookEndpoint',
  summary: 'Your callback endpoint: URL, status, secrets (ids only) and the last 24 hours',
  description:
    'The callback endpoint of the key’s mode (a test key sees the test endpoint): its URL, whether it is ' +
    'enabled or was disabled (when and why), the header your receiver key is sent in (never the key), the ' +
    'signing secrets’ ids and activation times (never a secret) and the delivery attempts of the last 24 ' +
    'hours. The read is audited.',
  tags: ['Partner'],
  responses: { '200': ok('The endpoint', endpointSchema, endpointExamples), ...errors(['NOT_FOUND']) },
};

const putOperation: ZodOpenApiOperationObject = {
  operationId: 'putWebhookEndpoint',
  summary: 'Register or change your callback endpoint (and enable it)',
  description:
    'Sets the URL result.ready events are sent to, for the key’s mode, with an optional key of your receiver. ' +
    'The URL must be https:// with a host name that resolves to public addresses only (checked now and at ' +
    'every connection). A new endpoint answers its signing secret once, in signingSecret; changing the URL ' +
    'keeps the secret your receiver already has. A disabled endpoint is enabled; events held while it was ' +
    'disabled are sent by a recovery (POST /v1/events/recover).',
  tags: ['Partner'],
  requestBody: { required: true, content: { 'application/json': { schema: endpointPutSchema } } },
  responses: {
    '200': ok('The endpoint as registered', endpointPutAnswerSchema, {
      created: {
        summary: 'A new endpoint, with its secret',
        value: { ...endpointExample, signingSecret: SECRET_EXAMPLE },
      },
      changed: { summary: 'A changed URL: the secret stays', value: endpointExample },
    }),
    ...errors(BODY_ERRORS, {
      VALIDATION_ERROR:
        'the body does not match, the URL is not https:// or points at a private, loopback or unresolvable host, or the receiver key or its header is not usable (details.fieldErrors names the field)',
    }),
  },
};

const deleteOperation: ZodOpenApiOperationObject = {
  operationId: 'deleteWebhookEndpoint',
  summary: 'Stop callbacks: remove your callback endpoint, its receiver key and signing secrets',
  description:
    'No callback is sent for the key’s mode any more. Events are still recorded (GET /v1/events shows them as ' +
    'failed for want of an endpoint) and a recovery can send them once an endpoint is registered again, with ' +
    'a new signing secret.',
  tags: ['Partner'],
  responses: {
    '204': { description: 'Removed', headers: successHeaders(true) },
    ...errors(['NOT_FOUND']),
  },
};

const rotateOperation: ZodOpenApiOperationObject = {
  operationId: 'rotateWebhookSecret',
  summary: 'Make a new signing secret that takes effect after activateIn',
  description:
    'Answers the new secret once, with its activation time. Until then deliveries are signed with the current ' +
    'secret and the new one (both signatures in webhook-signature), so your receiver can switch to the new ' +
    'secret at any moment of the window.',
  tags: ['Partner'],
  requestBody: { required: false, content: { 'application/json': { schema: rotateSecretSchema } } },
  responses: {
    '200': ok('The new secret', rotatedSchema, {
      rotated: {
        summary: 'A secret taking effect in 24 hours',
        value: { signingSecret: SECRET_EXAMPLE, activatesAt: '2026-11-22T12:00:00.000Z' },
      },
    }),
    ...errors([...BODY_ERRORS, 'NOT_FOUND']),
  },
};

const enableOperation: ZodOpenApiOperationObject = {
  operationId: 'enableWebhookEndpoint',
  summary: 'Enable a disabled endpoint',
  description:
    'New events are sent again at once. Events held while it was disabled stay held (deliveryStatus ' +
    'endpoint_disabled) until a recovery (POST /v1/events/recover) sends them. Enabling an enabled endpoint ' +
    'changes nothing.',
  tags: ['Partner'],
  responses: {
    '200': ok('The endpoint, enabled', endpointSchema, {
      enabled: { summary: 'Enabled', value: endpointExample },
    }),
    ...errors(['NOT_FOUND']),
  },
};

export const webhookEndpointPaths: ZodOpenApiPathsObject = {
  [PATH]: { get: getOperation, put: putOperation, delete: deleteOperation },
  [`${PATH}/rotate-secret`]: { post: rotateOperation },
  [`${PATH}/enable`]: { post: enableOperation },
};

function notConfigured(mode: string): ApiError {
  return ApiError.notFound(
    `No callback endpoint is registered for ${mode} mode. Register one with PUT /v1/webhook-endpoint.`,
  );
}

/** The endpoint the service found, or `404` for a mode without one. */
function found<T>(value: T | undefined, owner: EndpointOwner): T {
  if (value === undefined) throw notConfigured(owner.mode);
  return value;
}

function ownerOf(request: FastifyRequest): EndpointOwner {
  const principal = principalOf(request);
  return { tenant: tenantOf(request), partnerId: principal.partnerId, mode: principal.mode };
}

function fieldError(field: string, message: string): ApiError {
  return ApiError.validation(
    { formErrors: [], fieldErrors: { [field]: [message] } },
    'The request body is not valid.',
  );
}

export async function webhookEndpointRoutes(
  app: FastifyInstance,
  opts: { endpoints: WebhookEndpointService },
): Promise<void> {
  const { endpoints } = opts;
  const auth = { config: { auth: true } };

  app.get(PATH, auth, async (request) => {
    const owner = ownerOf(request);
    return found(await endpoints.get(owner, originOf(request)), owner);
  });

  app.put(PATH, auth, async (request) => {
    const input = parseBody(endpointPutSchema, request.body);
    try {
      const put = await endpoints.put(ownerOf(request), input, originOf(request));
      return put.newSecret ? { ...put.view, signingSecret: put.signingSecret } : put.view;
    } catch (error) {
      if (error instanceof EndpointInputError) throw fieldError(error.field, error.describe(error.field));
      throw error;
    }
  });

  app.delete(PATH, auth, async (request, reply) => {
    const owner = ownerOf(request);
    if (!(await endpoints.remove(owner, originOf(request)))) throw notConfigured(owner.mode);
    return reply.code(204).send();
  });

  app.post(`${PATH}/rotate-secret`, auth, async (request) => {
    const { activateIn } = parseBody(rotateSecretSchema, request.body);
    const ms = rotationDelayMs(activateIn);
    if (ms === undefined) {
      throw fieldError(
        'activateIn',
        `activateIn must be a duration such as ${DURATION_EXAMPLES}, at most 30d.`,
      );
    }
    const owner = ownerOf(request);
    return found(await endpoints.rotateSecret(owner, ms, originOf(request)), owner);
  });

  app.post(`${PATH}/enable`, auth, async (request) => {
    const owner = ownerOf(request);
    return found(await endpoints.enable(owner, originOf(request)), owner);
  });
}
