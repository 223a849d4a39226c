/**
 * Free-text ethnicity → the race/ethnicity groups the sub-models know (model-v1 §7).
 * Only PLCOm2012 (race terms) and CKD-PC (Black) use it, and the reference person shares the
 * person's group, so it never moves a score; it moves the absolute lung-cancer figure.
 */
export type EthnicGroup = 'reference' | 'black' | 'hispanic' | 'asian' | 'pacific_islander';

const ASIAN_WORDS = [
  'asian',
  'chinese',
  'indian',
  'pakistani',
  'bangladeshi',
  'filipino',
  'japanese',
  'korean',
  'vietnamese',
];

/**
 * Case-insensitive; underscores and hyphens read as spaces so that `american_indian` is
 * recognised as "american indian" (which stays in the reference group, as PLCOm2012 groups
 * American Indian / Alaska Native with white). The first matching rule wins, in model-v1's order.
 */
export function ethnicGroup(text: string | undefined): EthnicGroup {
  if (text === undefined) return 'reference';
  const t = text.toLowerCase().replace(/[_-]+/g, ' ');
  if (t.includes('black') || t.includes('african')) return 'black';
  if (t.includes('hispanic') || t.includes('latin')) return 'hispanic';
  const withoutAmericanIndian = t.replaceAll('american indian', '');
  if (ASIAN_WORDS.some((w) => withoutAmericanIndian.includes(w))) return 'asian';
  if (t.includes('pacific') || t.includes('hawaiian')) return 'pacific_islander';
  return 'reference';
}

export const ETHNIC_GROUP_LABELS: Readonly<Record<EthnicGroup, string>> = {
  reference: 'White, American Indian or Alaska Native, other or not stated',
  black: 'Black',
  hispanic: 'Hispanic',
  asian: 'Asian',
  pacific_islander: 'Native Hawaiian or Pacific Islander',
};
