import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAKE_LLM_KEY, FakeLlm } from '../../../../test/fakes/llm.ts';
import { LLM_FAILED_MESSAGE, LLM_NOT_CONFIGURED_MESSAGE, LLM_TIMEOUT_MESSAGE, llmProviderFor, llmSettingsFromEnv, openAiCompatibleProvider, requireLlm } from './llm-provider.ts';

// The optional LLM provider against a loopback fake that speaks the chat-completions wire format.

const fake = new FakeLlm();
beforeAll(async () => {
  await fake.start();
});
afterAll(() => fake.close());

const settings = () => ({ baseUrl: fake.baseUrl, apiKey: FAKE_LLM_KEY, model: 'test-model', timeoutMs: 2_000, maxTokens: 300 });

describe('llmSettingsFromEnv', () => {
  it('is off by default and when the base URL or model is missing', () => {
    expect(llmSettingsFromEnv({})).toBeNull();
    expect(llmSettingsFromEnv({ LLM_BASE_URL: 'https://api.example.com/v1' })).toBeNull();
    expect(llmSettingsFromEnv({ LLM_MODEL: 'gpt-4o-mini' })).toBeNull();
    expect(llmProviderFor(null)).toBeNull();
  });

  it('reads the three variables, with a timeout and a token limit', () => {
    expect(llmSettingsFromEnv({ LLM_BASE_URL: 'https://api.example.com/v1/', LLM_MODEL: 'gpt-4o-mini', LLM_API_KEY: 'k', LLM_TIMEOUT_MS: '5000', LLM_MAX_TOKENS: '200' })).toEqual({
      baseUrl: 'https://api.example.com/v1', apiKey: 'k', model: 'gpt-4o-mini', timeoutMs: 5_000, maxTokens: 200,
    });
    expect(() => llmSettingsFromEnv({ LLM_BASE_URL: 'ftp://x', LLM_MODEL: 'm' })).toThrow(/LLM_BASE_URL/);
    expect(() => llmSettingsFromEnv({ LLM_BASE_URL: 'https://x', LLM_MODEL: 'm', LLM_TIMEOUT_MS: '0' })).toThrow(/LLM_TIMEOUT_MS/);
  });

  it('refuses with a clear message when unset', () => {
    expect(() => requireLlm(null)).toThrow(LLM_NOT_CONFIGURED_MESSAGE);
    expect(LLM_NOT_CONFIGURED_MESSAGE).toMatch(/^AI explanations are not configured/);
  });
});

describe('openAiCompatibleProvider', () => {
  it('posts the documented request and reads choices[0].message.content', async () => {
    const provider = openAiCompatibleProvider(settings());
    const text = await provider.complete([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Net sales fell\nmore' }], { maxTokens: 1_000 });
    expect(text).toBe('Explanation: Net sales fell');
    const sent = fake.server.requests.at(-1)!;
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v1/chat/completions');
    expect(sent.headers.authorization).toBe(`Bearer ${FAKE_LLM_KEY}`);
    const body = JSON.parse(sent.rawBody) as Record<string, unknown>;
    // The caller's limit never exceeds the configured one.
    expect(body).toMatchObject({ model: 'test-model', max_tokens: 300, messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Net sales fell\nmore' }] });
  });

  it('turns the documented error body into a summarised error, without the key', async () => {
    fake.failNext = { status: 429, message: 'Rate limit reached for requests', type: 'requests' };
    const provider = openAiCompatibleProvider(settings());
    const failure = await provider.complete([{ role: 'user', content: 'hi' }]).catch((error: Error) => error);
    expect((failure as Error).message).toBe(`${LLM_FAILED_MESSAGE} (HTTP 429: Rate limit reached for requests)`);
    const wrongKey = await openAiCompatibleProvider({ ...settings(), apiKey: 'sk-wrong-secret' }).complete([{ role: 'user', content: 'hi' }]).catch((error: Error) => error);
    expect((wrongKey as Error).message).toContain('HTTP 401');
    expect((wrongKey as Error).message).not.toContain('sk-wrong-secret');
  });

  it('gives up after its timeout on a slow answer', async () => {
    fake.slowMs = 1_500;
    try {
      const started = Date.now();
      const failure = await openAiCompatibleProvider({ ...settings(), timeoutMs: 200 }).complete([{ role: 'user', content: 'hi' }]).catch((error: Error) => error);
      expect((failure as Error).message).toBe(LLM_TIMEOUT_MESSAGE);
      expect(Date.now() - started).toBeLessThan(1_400);
    } finally {
      fake.slowMs = 0;
    }
  });

  it('says it cannot answer when nothing listens', async () => {
    const failure = await openAiCompatibleProvider({ ...settings(), baseUrl: 'http://127.0.0.1:9/v1' }).complete([{ role: 'user', content: 'hi' }]).catch((error: Error) => error);
    expect((failure as Error).message).toBe(LLM_FAILED_MESSAGE);
  });
});
