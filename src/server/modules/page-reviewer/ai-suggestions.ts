import { aiSuggestionsSchema, type AiSuggestions, type Finding } from '../../../shared/page-reviewer.ts';
import type { LlmProvider } from '../llm/llm-provider.ts';

// The optional "AI suggestions" of a review (the LLM of modules/llm): a rewritten headline and call to
// action, and hypotheses to A/B test, from what the checks found. Without an LLM, or when its answer
// is not the JSON asked for, the review has none and the screen says how to enable them.

export function suggestionsPrompt(page: { url: string; title: string | null; headline: string | null; cta: string | null; findings: readonly Finding[] }) {
  const problems = page.findings.filter((finding) => finding.severity !== 'pass').map((finding) => `${finding.code} (${finding.severity}): ${finding.evidence.value ?? 'none'}`);
  return [
    { role: 'system' as const, content: 'You are a conversion-rate expert reviewing an e-commerce landing page. Answer with JSON only: {"headline": string, "cta": string, "hypotheses": string[] (3 to 5 A/B test hypotheses, one sentence each)}. Write in the language of the page.' },
    { role: 'user' as const, content: `Page: ${page.url}\nTitle: ${page.title ?? '(none)'}\nMain headline (H1): ${page.headline ?? '(none)'}\nCall to action: ${page.cta ?? '(none found)'}\nProblems found:\n${problems.join('\n') || '(none)'}` },
  ];
}

export async function aiSuggestionsFor(llm: LlmProvider, page: Parameters<typeof suggestionsPrompt>[0]): Promise<AiSuggestions | null> {
  try {
    const answer = await llm.complete(suggestionsPrompt(page), { maxTokens: 400 });
    const json = /\{[\s\S]*\}/.exec(answer)?.[0];
    const parsed = aiSuggestionsSchema.safeParse(json ? JSON.parse(json) : null);
    return parsed.success ? { ...parsed.data, hypotheses: parsed.data.hypotheses.slice(0, 5) } : null;
  } catch {
    return null;
  }
}
