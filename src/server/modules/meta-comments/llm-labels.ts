import { z } from 'zod';
import { COMMENT_CATEGORIES, SENTIMENT_LABELS, type CommentCategory, type SentimentLabel } from '../../../shared/meta-comments.ts';
import type { LlmProvider } from '../llm/llm-provider.ts';

// The optional LLM's second opinion on new comments' sentiment and category (README "Meta comments
// manager"). One request per batch; an answer that is not the asked-for JSON changes nothing, and so
// does any failure: the rule labels stay.

const MAX_BATCH = 40;

const answerSchema = z.array(z.object({ id: z.string(), sentiment: z.enum(SENTIMENT_LABELS), category: z.enum(COMMENT_CATEGORIES) }).loose());

export interface LlmLabel {
  sentimentLabel: SentimentLabel;
  category: CommentCategory;
}

export async function llmLabels(llm: LlmProvider, comments: { id: string; message: string }[]): Promise<Map<string, LlmLabel>> {
  const labels = new Map<string, LlmLabel>();
  for (let start = 0; start < comments.length; start += MAX_BATCH) {
    const batch = comments.slice(start, start + MAX_BATCH);
    try {
      const answer = await llm.complete([
        {
          role: 'system',
          content: `You label social media comments left on a shop's posts. For each comment give sentiment (${SENTIMENT_LABELS.join(', ')}) and category (${COMMENT_CATEGORIES.join(', ')}). Answer only with a JSON array of {"id", "sentiment", "category"}.`,
        },
        { role: 'user', content: JSON.stringify(batch.map((comment) => ({ id: comment.id, text: comment.message.slice(0, 1000) }))) },
      ], { maxTokens: 60 * batch.length });
      const json = answer.replace(/^```(?:json)?\s*|\s*```$/g, '');
      const parsed = answerSchema.safeParse(JSON.parse(json));
      if (!parsed.success) continue;
      const asked = new Set(batch.map((comment) => comment.id));
      for (const item of parsed.data) if (asked.has(item.id)) labels.set(item.id, { sentimentLabel: item.sentiment, category: item.category });
    } catch {
      // The rule labels stay.
    }
  }
  return labels;
}
