import vader from 'vader-sentiment';
import { detect } from 'tinyld';
import type { CommentCategory, CommentLanguage, SentimentLabel } from '../../../shared/meta-comments.ts';

// Labels for one comment: sentiment (VADER's compound score; VADER's lexicon is English, so es/fr/de
// add a small word list of their own), language (tinyld, limited to the four languages the app
// speaks), and a category by rules. README "Meta comments manager" explains the rules.

export interface CommentLabels {
  sentimentScore: number;
  sentimentLabel: SentimentLabel;
  category: CommentCategory;
  language: CommentLanguage;
  profanity: boolean;
}

const LANGUAGES = ['en', 'es', 'fr', 'de'] as const;

/** Words VADER does not know in the other three languages, with a valence on VADER's -4..4 scale. */
const VALENCE: Record<'es' | 'fr' | 'de', Record<string, number>> = {
  es: { encanta: 3, excelente: 3, genial: 3, perfecto: 3, gracias: 2, bueno: 2, buena: 2, bonito: 2, precioso: 3, recomiendo: 2, malo: -2, mala: -2, roto: -2.5, terrible: -3, horrible: -3, estafa: -3.5, peor: -3, decepcionado: -2.5, nunca: -1, reembolso: -1.5, tarde: -1 },
  fr: { superbe: 3, excellent: 3, excellente: 3, génial: 3, parfait: 3, merci: 2, bien: 1.5, beau: 2, recommande: 2, adore: 3, mauvais: -2.5, cassé: -2.5, nul: -3, horrible: -3, arnaque: -3.5, pire: -3, déçu: -2.5, jamais: -1, remboursement: -1.5, retard: -1.5 },
  de: { super: 3, toll: 3, großartig: 3, perfekt: 3, danke: 2, gut: 2, schön: 2, empfehle: 2, liebe: 3, begeistert: 3, schlecht: -2.5, kaputt: -2.5, furchtbar: -3, schrecklich: -3, betrug: -3.5, schlimmste: -3, enttäuscht: -2.5, nie: -1, niemand: -1, geld: -0.5, zurück: -1, verspätet: -1.5 },
};

const INTERROGATIVES: Record<CommentLanguage, RegExp> = {
  en: /^(how|when|where|what|which|who|why|do you|does|did|is there|are there|can i|can you|could you|will it|is it)\b/i,
  es: /^(cómo|como|cuándo|cuando|dónde|donde|qué|que|cuánto|cuanto|cuál|tienen|hay)\b/i,
  fr: /^(comment|quand|où|ou|quel|quelle|combien|pourquoi|est-ce que|avez-vous|vous livrez)\b/i,
  de: /^(wie|wann|wo|was|welche|welcher|warum|gibt es|habt ihr|haben sie|kann ich)\b/i,
  other: /^$/,
};

const COMPLAINT_WORDS = /\b(refund|broken|damaged|never arrived|never received|scam|worst|late|terrible|awful|disappointed|no answer|reembolso|roto|rota|nunca llegó|estafa|peor|decepcionad[oa]|remboursement|cassé|cassée|jamais reçu|arnaque|pire|déçue?|kaputt|nie angekommen|betrug|schlimmste|enttäuscht|geld zurück|niemand antwortet)\b/iu;

const SPAM_PATTERNS = [
  /https?:\/\/|www\.|\b[a-z0-9-]+\.(ru|xyz|top|click|link)\b/i,
  /(\+?\d[\d\s().-]{7,}\d)/,
  /\b(dm me|check my (profile|page|bio)|follow me|earn \$?\d+|work from home|crypto|bitcoin|whatsapp me|escríbeme al privado|écris-moi en privé|schreib mir privat)\b/i,
];

/** A small word list per language for the "auto-hide profanity" rule. */
const PROFANITY: RegExp[] = [
  /\b(fuck\w*|shit\w*|bitch\w*|asshole|bastard|cunt)\b/i,
  /\b(mierda|puta|puto|cabr[oó]n|gilipollas|joder)\b/iu,
  /\b(merde|putain|connard|connasse|salope|enculé)\b/iu,
  /\b(scheiße|scheisse|arschloch|fotze|wichser|hurensohn)\b/iu,
];

const words = (text: string) => text.toLowerCase().match(/[\p{L}']+/gu) ?? [];

export function languageOf(message: string): CommentLanguage {
  const found = detect(message, { only: [...LANGUAGES] });
  return (LANGUAGES as readonly string[]).includes(found) ? (found as CommentLanguage) : 'other';
}

/** VADER's compound score for English; for es/fr/de the word list's valence normalised the way VADER does (x / sqrt(x² + 15)). */
export function sentimentOf(message: string, language: CommentLanguage): number {
  const english = vader.SentimentIntensityAnalyzer.polarity_scores(message).compound;
  if (language === 'en' || language === 'other') return english;
  const list = VALENCE[language];
  const sum = words(message).reduce((total, word) => total + (list[word] ?? 0), 0);
  const exclaimed = sum === 0 ? 0 : Math.sign(sum) * Math.min(4, (message.match(/!/g) ?? []).length) * 0.292;
  const total = sum + exclaimed;
  const own = total === 0 ? 0 : total / Math.sqrt(total * total + 15);
  return Math.abs(own) >= Math.abs(english) ? own : english;
}

export function labelOf(score: number): SentimentLabel {
  if (score >= 0.05) return 'positive';
  if (score <= -0.05) return 'negative';
  return 'neutral';
}

function isRepetitive(message: string): boolean {
  const tokens = words(message);
  if (tokens.length >= 4 && new Set(tokens).size / tokens.length < 0.4) return true;
  return /(.)\1{7,}/u.test(message);
}

export function categoryOf(message: string, language: CommentLanguage, score: number): CommentCategory {
  if (SPAM_PATTERNS.some((pattern) => pattern.test(message)) || isRepetitive(message)) return 'spam';
  if (COMPLAINT_WORDS.test(message) && score < 0.3) return 'complaint';
  const trimmed = message.trim().replace(/^[¿¡"'\s]+/u, '');
  if (/[?？]/.test(message) || INTERROGATIVES[language].test(trimmed)) return 'question';
  if (score <= -0.4) return 'complaint';
  if (score >= 0.3) return 'praise';
  return 'other';
}

export function classifyComment(message: string): CommentLabels {
  const language = languageOf(message);
  const sentimentScore = Math.round(sentimentOf(message, language) * 1000) / 1000;
  return {
    sentimentScore,
    sentimentLabel: labelOf(sentimentScore),
    category: categoryOf(message, language, sentimentScore),
    language,
    profanity: PROFANITY.some((pattern) => pattern.test(message)),
  };
}
