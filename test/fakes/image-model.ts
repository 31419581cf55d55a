import sharp from 'sharp';
import { FakeServer } from './fake-server.ts';

// A loopback fake of an OpenAI-compatible Images API (OpenAI API reference, "Images"):
// POST /v1/images/generations (JSON { model, prompt, n, size }) and POST /v1/images/edits
// (multipart/form-data with image, prompt, model) answer { created, data: [{ b64_json }] }, or
// { data: [{ url }] } when `answerWithUrl` is set (the image then served at /files/<n>.png);
// a wrong key answers the documented { error: { message, type, param, code } } with 401.

export const FAKE_IMAGE_MODEL_KEY = 'sk-fake-image-key-456';

export class FakeImageModel {
  readonly server = new FakeServer();
  answerWithUrl = false;
  private readonly files = new Map<string, Buffer>();

  constructor() {
    const answer = async (kind: 'generation' | 'edit', prompt: string) => {
      // A 1024x1024 "lifestyle" scene: a warm gradient, distinct per kind so tests can tell them apart.
      const top = kind === 'generation' ? '#FDE68A' : '#A7F3D0';
      const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="1024"><defs><linearGradient id="g" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="${top}"/><stop offset="1" stop-color="#78350F"/></linearGradient></defs><rect width="1024" height="1024" fill="url(#g)"/></svg>`;
      const png = await sharp(Buffer.from(svg)).png().toBuffer();
      if (this.answerWithUrl) {
        const name = `${this.files.size + 1}.png`;
        this.files.set(name, png);
        return { body: { created: Math.floor(Date.now() / 1000), data: [{ url: `${this.server.url}/files/${name}`, revised_prompt: prompt }] } };
      }
      return { body: { created: Math.floor(Date.now() / 1000), data: [{ b64_json: png.toString('base64'), revised_prompt: prompt }] } };
    };
    const unauthorised = { status: 401, body: { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } } };
    const missing = (param: string) => ({ status: 400, body: { error: { message: `'${param}' is a required property`, type: 'invalid_request_error', param, code: null } } });

    this.server.route('POST', '/v1/images/generations', async (request) => {
      if (request.headers.authorization !== `Bearer ${FAKE_IMAGE_MODEL_KEY}`) return unauthorised;
      const body = request.body as { model?: string; prompt?: string } | undefined;
      if (!body?.prompt) return missing('prompt');
      if (!body.model) return missing('model');
      return answer('generation', body.prompt);
    });
    this.server.route('POST', '/v1/images/edits', async (request) => {
      if (request.headers.authorization !== `Bearer ${FAKE_IMAGE_MODEL_KEY}`) return unauthorised;
      if (!String(request.headers['content-type']).startsWith('multipart/form-data')) return { status: 400, body: { error: { message: 'Expected multipart/form-data.', type: 'invalid_request_error', param: null, code: null } } };
      const field = (name: string) => new RegExp(`name="${name}"(?:; filename="[^"]*")?\\r\\n(?:Content-Type: [^\\r]*\\r\\n)?\\r\\n([^\\r]*)`).exec(request.rawBody)?.[1];
      if (!/name="image"; filename="/.test(request.rawBody)) return missing('image');
      const prompt = field('prompt');
      if (!prompt) return missing('prompt');
      return answer('edit', prompt);
    });
    this.server.route('GET', '/files/:name', async (request) => {
      const file = this.files.get(request.params.name!);
      return file ? { headers: { 'content-type': 'image/png' }, body: new Uint8Array(file) } : { status: 404, body: 'not found' };
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
