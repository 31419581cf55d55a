import { describe, expect, it } from 'vitest';
import { classifyComment } from './comment-classifier.ts';

// Hand-checked examples: what a shop owner reading the comment would call it.
const EXAMPLES: [string, { sentimentLabel: string; category: string; language: string }][] = [
  ['Love this jacket, the quality is amazing!', { sentimentLabel: 'positive', category: 'praise', language: 'en' }],
  ['Terrible service, my order never arrived. I want a refund.', { sentimentLabel: 'negative', category: 'complaint', language: 'en' }],
  ['How long does shipping to Canada take?', { sentimentLabel: 'neutral', category: 'question', language: 'en' }],
  ['Earn $500 a day from home!!! DM me or visit http://spam.example/win', { category: 'spam', language: 'en' }] as never,
  ['¿Cuándo llega el pedido a Madrid?', { sentimentLabel: 'neutral', category: 'question', language: 'es' }],
  ['Me encanta, ¡excelente calidad!', { sentimentLabel: 'positive', category: 'praise', language: 'es' }],
  ['El producto llegó roto y quiero un reembolso', { sentimentLabel: 'negative', category: 'complaint', language: 'es' }],
  ['Est-ce que vous livrez en Belgique ?', { sentimentLabel: 'neutral', category: 'question', language: 'fr' }],
  ['Superbe, je recommande !', { sentimentLabel: 'positive', category: 'praise', language: 'fr' }],
  ["Colis cassé, c'est une arnaque, je veux un remboursement", { sentimentLabel: 'negative', category: 'complaint', language: 'fr' }],
  ['Wie viel kostet der Versand nach Österreich?', { sentimentLabel: 'neutral', category: 'question', language: 'de' }],
  ['Die Lieferung kam kaputt an und niemand antwortet. Ich will mein Geld zurück!', { sentimentLabel: 'negative', category: 'complaint', language: 'de' }],
  ['Super Qualität, vielen Dank! Ich bin begeistert.', { sentimentLabel: 'positive', category: 'praise', language: 'de' }],
];

describe('classifyComment', () => {
  it.each(EXAMPLES)('%s', (message, expected) => {
    expect(classifyComment(message)).toMatchObject(expected);
  });

  it('spam: phone numbers and the same words over and over', () => {
    expect(classifyComment('Call me now +44 7700 900123 for cheap followers').category).toBe('spam');
    expect(classifyComment('win win win win win win win win').category).toBe('spam');
  });

  it('flags profanity per language', () => {
    expect(classifyComment('This is shit').profanity).toBe(true);
    expect(classifyComment('Qué mierda de envío').profanity).toBe(true);
    expect(classifyComment('Putain, encore en retard').profanity).toBe(true);
    expect(classifyComment('So eine Scheiße').profanity).toBe(true);
    expect(classifyComment('Lovely colours').profanity).toBe(false);
  });
});
