import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  OUTCOME_FOCUS,
  OUTCOME_STATUS_LABELS,
  PLACEMENT_LABELS,
  partnerOutcomeSchema,
  TIER_LABELS,
  toPartnerOutcome,
} from '../../../src/domain/model/partner-view.js';
import { documentsOnlyBody, PLAIN, score, scoreBody } from './fixture.js';

describe('partner view (partner-api.md "Outcome fields")', () => {
  const outcomes = [
    ...score().outcomes,
    ...scoreBody(documentsOnlyBody()).outcomes,
    ...score({ ...PLAIN, 'subject.demographics.ageYears': 10 }).outcomes,
  ];

  it('maps every field to plain-language labels and validates against the schema', () => {
    for (const o of outcomes) {
      const p = toPartnerOutcome(o);
      expect(partnerOutcomeSchema.parse(p)).toEqual(p);
      expect(p).toMatchObject({
        outcomeId: o.outcomeId,
        focus: OUTCOME_FOCUS[o.outcomeId],
        score: o.score,
        referencePlacement: o.placement,
        referencePlacementLabel: PLACEMENT_LABELS[o.placement],
        outcomeStatus: o.status,
        outcomeStatusLabel: OUTCOME_STATUS_LABELS[o.status],
        band: { tier: o.tier, label: TIER_LABELS[o.tier] },
      });
    }
  });
  it('carries no sub-model ids, risks or codes', () => {
    for (const o of outcomes) {
      const p = toPartnerOutcome(o);
      expect(Object.keys(p).sort()).toEqual(
        [
          'outcomeId',
          'focus',
          'score',
          'referencePlacement',
          'referencePlacementLabel',
          'outcomeStatus',
          'outcomeStatusLabel',
          'band',
          ...(o.notices.length > 0 ? ['notices'] : []),
        ].sort(),
      );
      expect(JSON.stringify(p)).not.toMatch(/framingham|ukbdrs|ckdpc|kotz|bortz|plco|kdigo|subModel|risk"/i);
    }
  });
  it('tier labels are Supportive / Partly supportive / Less supportive / Not available', () => {
    expect(TIER_LABELS).toEqual({
      high: 'Supportive',
      medium: 'Partly supportive',
      low: 'Less supportive',
      unknown: 'Not available',
    });
  });
  it('a failed outcome shows band Not available and its notice', () => {
    const failed = outcomes.find((o) => o.status === 'failed')!;
    const p = toPartnerOutcome(failed);
    expect(p.band).toEqual({ tier: 'unknown', label: 'Not available' });
    expect(p.notices?.[0]?.message).toBeTypeOf('string');
  });
  it('omits notices when there are none', () => {
    const p = toPartnerOutcome({ ...score().outcomes[0]!, notices: [] });
    expect(p.notices).toBeUndefined();
  });
  it('the schema is registered as Outcome with field descriptions', () => {
    type Props = Record<string, { description?: string }>;
    const json = z.toJSONSchema(partnerOutcomeSchema) as unknown as {
      $defs: { Outcome: { properties: Props } };
    };
    expect(partnerOutcomeSchema.meta()?.id).toBe('Outcome');
    const props = Object.entries(json.$defs.Outcome.properties);
    expect(props).toHaveLength(9);
    for (const [name, prop] of props) expect(prop.description, name).toBeTypeOf('string');
  });
});
