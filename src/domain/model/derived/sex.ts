/** Sex recorded at birth, as the submission schema spells it. */
export type Sex = 'male' | 'female';
