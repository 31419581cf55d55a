import sharp from 'sharp';
import { MAX_SOURCE_BYTES, UPLOAD_TOO_LARGE_MESSAGE, UPLOAD_TYPE_MESSAGE, UPLOAD_TYPES } from '../../../shared/product-images.ts';
import { AppError } from '../../errors.ts';
import { OutboundBodyTooLargeError, OutboundRefusedError, OutboundTimeoutError, outboundFetch, type OutboundPolicy } from '../../outbound/outbound-http.ts';

// Where a source image comes from: the bytes a user uploaded, a product's synced image URL (fetched
// through the outbound module, which refuses private and loopback addresses unless a test's policy
// allows its own loopback server), or, for the demo catalogue (no image URLs), a studio-style photo
// drawn here. Whatever the origin, sharp must recognise the bytes as one of UPLOAD_TYPES.

const SOURCE_TIMEOUT_MS = 20_000;

/** The bytes if they are a JPEG/PNG/WebP/AVIF of at most 20 MB, by their content (never the name). */
export async function acceptedImage(bytes: Buffer): Promise<Buffer> {
  if (bytes.length > MAX_SOURCE_BYTES) throw new AppError('BAD_REQUEST', UPLOAD_TOO_LARGE_MESSAGE);
  const format = await sharp(bytes).metadata().then((meta) => (meta.format === 'heif' && meta.compression === 'av1' ? 'avif' : meta.format)).catch(() => null);
  if (!format || !(UPLOAD_TYPES as readonly string[]).includes(format)) throw new AppError('BAD_REQUEST', UPLOAD_TYPE_MESSAGE);
  return bytes;
}

export function decodeUpload(dataBase64: string): Buffer {
  const bytes = Buffer.from(dataBase64.replace(/^data:[^,]*,/, ''), 'base64');
  if (bytes.length === 0) throw new AppError('BAD_REQUEST', UPLOAD_TYPE_MESSAGE);
  return bytes;
}

/** A product's image from its URL; the reason it failed is said plainly (it becomes a batch item's failure). */
export async function fetchProductImage(url: string, policy?: OutboundPolicy): Promise<Buffer> {
  let response: Response;
  try {
    response = await outboundFetch(url, { headers: { accept: 'image/avif,image/webp,image/png,image/jpeg;q=0.9' } }, { timeoutMs: SOURCE_TIMEOUT_MS, maxBodyBytes: MAX_SOURCE_BYTES, ...(policy ? { policy } : {}) });
  } catch (error) {
    if (error instanceof OutboundBodyTooLargeError) throw new AppError('BAD_REQUEST', UPLOAD_TOO_LARGE_MESSAGE);
    if (error instanceof OutboundRefusedError) throw new AppError('BAD_REQUEST', `The product image address is not allowed (${error.message}).`);
    if (error instanceof OutboundTimeoutError) throw new AppError('BAD_GATEWAY', 'The product image did not arrive in time.');
    throw new AppError('BAD_GATEWAY', `The product image could not be fetched (${error instanceof Error ? error.message : String(error)}).`);
  }
  if (!response.ok) throw new AppError('BAD_GATEWAY', `The product image address answered HTTP ${response.status}.`);
  return acceptedImage(Buffer.from(await response.arrayBuffer()));
}

const DEMO_HUES = [12, 200, 140, 280, 45, 330, 95, 230];

/** The demo catalogue's photo of a product: its shape in a colour of its own on a light grey backdrop. */
export async function demoProductPhoto(productId: number): Promise<Buffer> {
  const hue = DEMO_HUES[productId % DEMO_HUES.length]!;
  const shape = productId % 3 === 0
    ? `<circle cx="600" cy="450" r="300" fill="hsl(${hue},70%,45%)"/><circle cx="600" cy="450" r="120" fill="hsl(${hue},60%,80%)"/>`
    : productId % 3 === 1
      ? `<rect x="330" y="170" width="540" height="560" rx="70" fill="hsl(${hue},70%,45%)"/><rect x="440" y="110" width="320" height="110" rx="30" fill="hsl(${hue},40%,30%)"/>`
      : `<path d="M600 140 L900 740 L300 740 Z" fill="hsl(${hue},70%,45%)"/><rect x="520" y="520" width="160" height="160" fill="hsl(${hue},60%,80%)"/>`;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="1200" height="900"><rect width="1200" height="900" fill="rgb(226,226,224)"/>${shape}</svg>`;
  return sharp(Buffer.from(svg)).jpeg({ quality: 90 }).toBuffer();
}

export function isDemoProduct(product: { externalId: string; imageUrl?: string | null }): boolean {
  return !product.imageUrl && product.externalId.startsWith('demo-product-');
}
