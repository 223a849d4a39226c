export {
  ALIVE_STATUSES,
  type AliveStatus,
  FAMILY_CONDITIONS,
  type FamilyCondition,
} from './family-history-rules.js';
export { type DirectIdentifierKind, findDirectIdentifier, findIdentifierKey } from './identifiers.js';
export { type FlattenedErrors, formatPath } from './issue-messages.js';
export * from './markers.js';
export * from './outcomes.js';
export * from './panel.js';
export * from './schema.js';
export {
  SMOKING_FREQUENCIES,
  SMOKING_STATUSES,
  type SmokingFrequency,
  type SmokingStatus,
} from './smoking-rules.js';
