import { AppError } from '../../errors.ts';

// The optional image model (README, "Optional AI: the image model"): an OpenAI-compatible Images API,
// off unless IMAGE_API_URL and IMAGE_MODEL are set; the local generator is complete without it.
// Wire format (OpenAI API reference, Images): POST {base}/images/generations with JSON
// { model, prompt, n, size } and POST {base}/images/edits as multipart/form-data with `image`
// (file), `prompt`, `model`, `n`, `size`; both answer { created, data: [{ b64_json } | { url }] },
// errors { error: { message, type, code } }. The key is a Bearer token, never logged.

export const IMAGE_MODEL_FAILED_MESSAGE = 'The image model could not make the image. Please try again later.';
export const IMAGE_MODEL_NOT_CONFIGURED_MESSAGE = 'AI backgrounds need an image model. Set IMAGE_API_URL and IMAGE_MODEL (and IMAGE_API_KEY if the endpoint needs one).';

export interface ImageModelSettings {
  /** e.g. https://api.openai.com/v1 (the path before /images/...) */
  baseUrl: string;
  apiKey: string | undefined;
  model: string;
  timeoutMs: number;
}

export interface ImageModel {
  readonly model: string;
  /** A new image from a prompt (e.g. a lifestyle background). */
  generate(prompt: string, size?: string): Promise<Buffer>;
  /** The product photo edited by a prompt (a variant, a scene around the product). */
  edit(image: Buffer, prompt: string, size?: string): Promise<Buffer>;
}

/** IMAGE_* variables -> settings, or null when off (the default). */
export function imageModelSettingsFromEnv(env: NodeJS.ProcessEnv): ImageModelSettings | null {
  const baseUrl = env.IMAGE_API_URL?.trim();
  const model = env.IMAGE_MODEL?.trim();
  if (!baseUrl || !model) return null;
  let parsed: URL;
  try {
    parsed = new URL(baseUrl);
  } catch {
    throw new Error('Invalid environment: IMAGE_API_URL must be an http or https address');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('Invalid environment: IMAGE_API_URL must be an http or https address');
  return { baseUrl: baseUrl.replace(/\/+$/, ''), apiKey: env.IMAGE_API_KEY?.trim() || undefined, model, timeoutMs: 120_000 };
}

interface ImagesAnswer {
  data?: { b64_json?: string; url?: string }[];
  error?: { message?: string };
}

export function openAiImageModel(settings: ImageModelSettings): ImageModel {
  const auth: Record<string, string> = settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {};
  async function call(path: string, init: { body: string | FormData; headers: Record<string, string> }): Promise<Buffer> {
    const signal = AbortSignal.timeout(settings.timeoutMs);
    let body: ImagesAnswer;
    let status: number;
    try {
      const response = await fetch(`${settings.baseUrl}${path}`, { method: 'POST', headers: { accept: 'application/json', ...auth, ...init.headers }, body: init.body, signal, redirect: 'error' });
      status = response.status;
      body = (await response.json()) as ImagesAnswer;
    } catch {
      throw new AppError(signal.aborted ? 'GATEWAY_TIMEOUT' : 'BAD_GATEWAY', IMAGE_MODEL_FAILED_MESSAGE);
    }
    if (status >= 400 || body.error) throw new AppError('BAD_GATEWAY', `${IMAGE_MODEL_FAILED_MESSAGE} (HTTP ${status}${body.error?.message ? `: ${body.error.message.slice(0, 200)}` : ''})`);
    const first = body.data?.[0];
    if (first?.b64_json) return Buffer.from(first.b64_json, 'base64');
    if (first?.url) {
      // A hosted result is fetched from the model provider's own address, under the same deadline.
      const image = await fetch(first.url, { signal, redirect: 'error' }).catch(() => null);
      if (image?.ok) return Buffer.from(await image.arrayBuffer());
    }
    throw new AppError('BAD_GATEWAY', IMAGE_MODEL_FAILED_MESSAGE);
  }
  return {
    model: settings.model,
    generate: (prompt, size = '1024x1024') =>
      call('/images/generations', { headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: settings.model, prompt, n: 1, size }) }),
    edit: (image, prompt, size = '1024x1024') => {
      const form = new FormData();
      form.append('model', settings.model);
      form.append('prompt', prompt);
      form.append('n', '1');
      form.append('size', size);
      form.append('image', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'product.png');
      return call('/images/edits', { headers: {}, body: form });
    },
  };
}

let fromEnv: ImageModel | null | undefined;

/** Another model than IMAGE_*'s (tests: the loopback fake), or null for none; undefined goes back to the environment's. */
export function configureImageModel(model: ImageModel | null | undefined): void {
  fromEnv = model;
}

/** The app's image model (from IMAGE_* at first use), or null when none is configured. */
export function imageModelFromEnv(): ImageModel | null {
  if (fromEnv === undefined) {
    const settings = imageModelSettingsFromEnv(process.env);
    fromEnv = settings ? openAiImageModel(settings) : null;
  }
  return fromEnv;
}
