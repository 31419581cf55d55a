export type LegalDocumentKey = 'privacy' | 'terms';

/** Section ids in reading order; they are also the anchors (#retention) and the keys in legal.json. */
export const LEGAL_SECTIONS: Record<LegalDocumentKey, readonly string[]> = {
  privacy: ['who', 'collect', 'use', 'legal-bases', 'credentials', 'sharing', 'retention', 'cookies', 'rights', 'security', 'changes', 'contact'],
  terms: [
    'agreement',
    'accounts',
    'subscriptions',
    'plans',
    'acceptable-use',
    'your-data',
    'guests-admin',
    'accuracy',
    'termination',
    'liability',
    'law',
    'changes',
    'contact',
  ],
};

/** When the texts last changed (shown at the top of both documents). */
export const LEGAL_LAST_UPDATED = '2026-11-21';
