import {
  checkPanel,
  type FlattenedErrors,
  type NormalisedSubmission,
  type PanelIssue,
  parseSubmission,
} from '../domain/submission/index.js';
import { readJsonText } from './read-json.js';

/** Why a submission is not accepted, in the order the contract checks: schema, partner, panel. */
export type CheckRefusal =
  /** The JSON text, the headers, the schema or its conditional rules (`400 VALIDATION_ERROR`). */
  | { reason: 'invalid'; details: FlattenedErrors }
  /** The body names another partner than the key that sent it (`403 PARTNER_ID_MISMATCH`). */
  | { reason: 'partner' }
  /** The marker panel (`400 SUBMISSION_VALIDATION_ERROR`). */
  | { reason: 'panel'; issues: PanelIssue[] };

/** A submission that passed, normalised: the object the steps work on and the text stored. */
export interface CheckedSubmission {
  submission: NormalisedSubmission;
  normalisedBody: string;
}

export type Checked = ({ ok: true } & CheckedSubmission) | { ok: false; refusal: CheckRefusal };

/** What a check depends on besides the body. */
export interface CheckPoint {
  /** The instant of receipt: age and date rules depend on it, so the worker checks at it again. */
  now: Date;
  /** The `partnerId` the body must name: the live credential's id, in both modes. */
  namedPartnerId: string;
}

/**
 * The checks a submission passes to be accepted, and its normalisation. The door runs them on a
 * request's body (with its headers' problems, reported together with the schema's), the worker
 * again on the stored body (`checkStoredSubmission`): one function, so the two cannot differ.
 */
export function checkSubmission(
  value: unknown,
  at: CheckPoint,
  headerErrors?: FlattenedErrors['fieldErrors'],
): Checked {
  const parsed = parseSubmission(value, { now: at.now });
  if (!parsed.ok) {
    const { formErrors, fieldErrors } = parsed.error;
    return invalid({
      formErrors,
      fieldErrors: headerErrors ? { ...headerErrors, ...fieldErrors } : fieldErrors,
    });
  }
  if (headerErrors) return invalid({ formErrors: [], fieldErrors: headerErrors });
  if (parsed.value.partnerId.toLowerCase() !== at.namedPartnerId.toLowerCase()) {
    return { ok: false, refusal: { reason: 'partner' } };
  }
  const panel = checkPanel(parsed.value);
  if (!panel.ok) return { ok: false, refusal: { reason: 'panel', issues: panel.details } };
  return { ok: true, submission: panel.value, normalisedBody: JSON.stringify(panel.value) };
}

function invalid(details: FlattenedErrors): Checked {
  return { ok: false, refusal: { reason: 'invalid', details } };
}

/**
 * The stored text of an accepted submission checked again, with the door's reader and checks at
 * the door's instant: `unreadable` when the text is no longer JSON this reader takes.
 */
export function checkStoredSubmission(
  text: string,
  at: CheckPoint,
): Checked | { ok: false; refusal: { reason: 'unreadable' } } {
  const read = readJsonText(text);
  if (!read.ok) return { ok: false, refusal: { reason: 'unreadable' } };
  return checkSubmission(read.value, at);
}
