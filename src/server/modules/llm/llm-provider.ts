import { AppError } from '../../errors.ts';

// The optional LLM (README, "Optional AI: the LLM provider"): one client for an OpenAI-compatible
// chat-completions endpoint, off unless LLM_BASE_URL and LLM_MODEL are set. Every feature is
// complete without it. Wire format: POST {base}/chat/completions with { model, messages, max_tokens };
// the answer's text is choices[0].message.content, an error answers { error: { message, type, code } }
// (docs/platform-notes.md, "OpenAI-compatible chat completions"). The key is sent as a Bearer token
// and never logged or put in an error message.

export const LLM_NOT_CONFIGURED_MESSAGE = 'AI explanations are not configured. Set LLM_BASE_URL and LLM_MODEL (and LLM_API_KEY if the endpoint needs one) to enable them.';
export const LLM_TIMEOUT_MESSAGE = 'The AI service did not answer in time. Please try again later.';
export const LLM_FAILED_MESSAGE = 'The AI service could not answer. Please try again later.';

export interface LlmSettings {
  /** e.g. https://api.openai.com/v1 (the path before /chat/completions) */
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
  maxTokens: number;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface LlmProvider {
  readonly model: string;
  /** The model's answer to the conversation, trimmed; throws AppError on timeouts and failures. */
  complete(messages: ChatMessage[], options?: { maxTokens?: number; signal?: AbortSignal }): Promise<string>;
}

/** LLM_* variables -> settings, or null when the LLM is off (the default). */
export function llmSettingsFromEnv(env: NodeJS.ProcessEnv): LlmSettings | null {
  const baseUrl = env.LLM_BASE_URL?.trim();
  const model = env.LLM_MODEL?.trim();
  if (!baseUrl || !model) return null;
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new Error('Invalid environment: LLM_BASE_URL must be an http or https address');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('Invalid environment: LLM_BASE_URL must be an http or https address');
  const positive = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1) throw new Error(`Invalid environment: ${name} must be a positive whole number`);
    return value;
  };
  return {
    baseUrl: baseUrl.replace(/\/+$/, ''),
    apiKey: env.LLM_API_KEY?.trim() || undefined,
    model,
    timeoutMs: positive('LLM_TIMEOUT_MS', 20_000),
    maxTokens: positive('LLM_MAX_TOKENS', 400),
  };
}

interface ChatCompletionAnswer {
  choices?: { message?: { content?: string | null } }[];
  error?: { message?: string };
}

/** A provider speaking the chat-completions wire format over plain fetch. */
export function openAiCompatibleProvider(settings: LlmSettings): LlmProvider {
  return {
    model: settings.model,
    async complete(messages, options = {}) {
      const timeout = AbortSignal.timeout(settings.timeoutMs);
      const signal = options.signal ? AbortSignal.any([timeout, options.signal]) : timeout;
      let response: Response;
      try {
        response = await fetch(`${settings.baseUrl}/chat/completions`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
          },
          body: JSON.stringify({ model: settings.model, messages, max_tokens: Math.min(options.maxTokens ?? settings.maxTokens, settings.maxTokens), temperature: 0.2 }),
          signal,
          redirect: 'error',
        });
      } catch {
        if (timeout.aborted) throw new AppError('GATEWAY_TIMEOUT', LLM_TIMEOUT_MESSAGE);
        throw new AppError('BAD_GATEWAY', LLM_FAILED_MESSAGE);
      }
      let body: ChatCompletionAnswer;
      try {
        // The body is read under the same deadline: a server that sends headers and then stalls also times out.
        body = (await response.json()) as ChatCompletionAnswer;
      } catch {
        if (timeout.aborted) throw new AppError('GATEWAY_TIMEOUT', LLM_TIMEOUT_MESSAGE);
        throw new AppError('BAD_GATEWAY', LLM_FAILED_MESSAGE);
      }
      if (!response.ok || body.error) {
        const detail = typeof body.error?.message === 'string' ? `: ${body.error.message.slice(0, 200)}` : '';
        throw new AppError('BAD_GATEWAY', `${LLM_FAILED_MESSAGE} (HTTP ${response.status}${detail})`);
      }
      const text = body.choices?.[0]?.message?.content;
      if (typeof text !== 'string' || !text.trim()) throw new AppError('BAD_GATEWAY', LLM_FAILED_MESSAGE);
      return text.trim();
    },
  };
}

export function llmProviderFor(settings: LlmSettings | null): LlmProvider | null {
  return settings ? openAiCompatibleProvider(settings) : null;
}

/** The provider, or the clear refusal every AI feature gives when it is not configured. */
export function requireLlm(provider: LlmProvider | null): LlmProvider {
  if (!provider) throw new AppError('PRECONDITION_FAILED', LLM_NOT_CONFIGURED_MESSAGE);
  return provider;
}
