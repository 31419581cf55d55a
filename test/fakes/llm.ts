import { FakeServer, type FakeRequest } from './fake-server.ts';

// A loopback fake of an OpenAI-compatible chat-completions endpoint (docs/platform-notes.md,
// "OpenAI-compatible chat completions"): POST /v1/chat/completions with { model, messages,
// max_tokens } and a Bearer key answers a `chat.completion` object; errors answer the documented
// { error: { message, type, param, code } } body; `slowMs` delays the answer (for timeouts).

export const FAKE_LLM_KEY = 'sk-fake-llm-key-123';

export interface FakeLlmOptions {
  /** What the model says; by default it echoes the prompt's first line. */
  reply?: (request: FakeRequest) => string;
}

export class FakeLlm {
  readonly server = new FakeServer();
  /** The next answers are errors with this status and message (then cleared). */
  failNext: { status: number; message: string; type: string } | null = null;
  /** Delay of every answer, in ms. */
  slowMs = 0;

  private readonly options: FakeLlmOptions;

  constructor(options: FakeLlmOptions = {}) {
    this.options = options;
    this.server.route('POST', '/v1/chat/completions', async (request) => {
      if (this.slowMs > 0) await new Promise((resolve) => setTimeout(resolve, this.slowMs));
      if (request.headers.authorization !== `Bearer ${FAKE_LLM_KEY}`) {
        return { status: 401, body: { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } };
      }
      if (this.failNext) {
        const failure = this.failNext;
        this.failNext = null;
        return { status: failure.status, body: { error: { message: failure.message, type: failure.type, param: null, code: null } } };
      }
      const body = request.body as { model?: string; messages?: { role: string; content: string }[]; max_tokens?: number };
      if (!body?.model || !Array.isArray(body.messages) || body.messages.length === 0) {
        return { status: 400, body: { error: { message: "'messages' is a required property", type: 'invalid_request_error', param: 'messages', code: null } } };
      }
      const content = this.options.reply?.(request) ?? `Explanation: ${body.messages.at(-1)!.content.split('\n')[0]}`;
      return {
        body: {
          id: `chatcmpl-${this.server.requests.length}`,
          object: 'chat.completion',
          created: Math.floor(Date.now() / 1000),
          model: body.model,
          choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
          usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
        },
      };
    });
  }

  get baseUrl(): string {
    return `${this.server.url}/v1`;
  }

  async start(port = 0): Promise<this> {
    await this.server.start(port);
    return this;
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
