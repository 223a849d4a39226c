import type { EndpointPut } from '../../operations/callback-endpoint.js';
import { rotationDelayMs } from '../../webhooks/rotation.js';
import { ApiError } from '../errors.js';
import { endpointPutSchema } from '../webhook-endpoint-schemas.js';
import type { FormState } from './pages/callbacks.js';

/** The form's string fields; anything else is dropped. */
export function formValues(body: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries((body ?? {}) as Record<string, unknown>)) {
    if (typeof value === 'string' && name !== '_csrf') out[name] = value.trim();
  }
  return out;
}

/** The API's body field names as the console's form names them. */
const FIELD_OF: Record<string, string> = {
  url: 'url',
  'receiverKey.header': 'receiverKeyHeader',
  'receiverKey.value': 'receiverKeyValue',
  receiverKey: 'receiverKeyValue',
};

/**
 * The form's problems by form field, from a `400` naming the API's fields (a problem of the whole
 * body is shown at `first`, the form's first field); undefined for another error.
 */
export function formErrorsOf(error: unknown, first: string): Record<string, string> | undefined {
  if (!(error instanceof ApiError) || error.statusCode !== 400 || !error.details) return undefined;
  if (Array.isArray(error.details)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, messages] of Object.entries(error.details.fieldErrors)) {
    out[FIELD_OF[key] ?? key] = messages[0] ?? 'Not valid.';
  }
  const form = error.details.formErrors[0];
  if (Object.keys(out).length === 0 && form) out[first] = form;
  return out;
}

/** The set-URL form as `PUT /v1/webhook-endpoint`'s body, checked by the API's schema (`400` naming the field). */
export function endpointInput(values: Record<string, string>): EndpointPut {
  const header = values.receiverKeyHeader ?? '';
  const key = values.receiverKeyValue ?? '';
  const body = {
    url: values.url ?? '',
    ...(key !== '' || header !== ''
      ? { receiverKey: { ...(header !== '' ? { header } : {}), value: key } }
      : {}),
  };
  const parsed = endpointPutSchema.safeParse(body);
  if (parsed.success) return parsed.data;
  const fieldErrors: Record<string, string[]> = {};
  for (const issue of parsed.error.issues) {
    const name = issue.path.map(String).join('.');
    fieldErrors[name] = [messageOf(name)];
  }
  throw ApiError.validation({ formErrors: [], fieldErrors }, 'The callback URL is not valid.');
}

function messageOf(field: string): string {
  if (field === 'url') return 'Enter the URL of your receiver, up to 2048 characters.';
  if (field === 'receiverKey.header') return 'The header name is 1 to 64 characters.';
  return 'Enter the receiver key (1 to 1024 printable characters without spaces), or leave both receiver key fields empty.';
}

/** How long until a rotated secret signs, from the form's choice; `400` outside the API's range. */
export function activateInMs(values: Record<string, string>): number {
  const ms = rotationDelayMs(values.activateIn);
  if (ms === undefined) {
    throw ApiError.validation(
      {
        formErrors: [],
        fieldErrors: { activateIn: ['Choose when the new secret starts signing from the list.'] },
      },
      'The rotation is not valid.',
    );
  }
  return ms;
}

const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?$/;

/**
 * A `datetime-local` field's value as the API's ISO time: the fields are labelled UTC, so a
 * value without an offset is read as UTC; other text goes to the API's check as it is.
 */
export function utcTime(value: string | undefined): string | undefined {
  if (value === undefined || value === '') return undefined;
  if (!LOCAL_TIME.test(value)) return value;
  return `${value.length === 16 ? `${value}:00` : value}Z`;
}

export function formState(values: Record<string, string>, errors: Record<string, string> = {}): FormState {
  return { values, errors };
}
