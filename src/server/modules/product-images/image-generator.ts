import sharp, { type Sharp } from 'sharp';
import { MIN_PRODUCT_FILL, SOCIAL_SIZES, type GalleryFormat, type ImageFormat, type MainImageChecks } from '../../../shared/product-images.ts';

// The local generator (sharp / libvips): the marketplace main image, the social formats, and the
// check of every main image computed from the output's own pixels.
//
// Main image rules (docs/platform-notes.md, "Marketplace main image rules"):
// - Amazon, product image requirements (Seller Central help "Product image requirements"): the MAIN
//   image has a pure white background (RGB 255,255,255), the product fills >= 85 % of the frame,
//   and images are >= 1000 px on the longer side so zoom works (1600+ recommended); no text, logos
//   or badges on the main image.
// - Google Merchant Center, image link [image_link] (support.google.com/merchants/answer/6324350):
//   JPEG/WebP/PNG/GIF/BMP/TIFF; the product clearly shown, no promotional overlays on the main image;
//   Google recommends >= 1500 x 1500 px and announced a 500 x 500 px minimum for all products.
// So the main image is square, white, 2000 px by default, with the product at 90 % of the side
// (a margin over Amazon's 85 % that survives JPEG/WebP edges), and carries no badge or text.

/** The product's share of the main image's side as generated (the check requires MIN_PRODUCT_FILL). */
export const MAIN_PRODUCT_SHARE = 0.9;
/** Channel distance (0-255) under which a pixel counts as the photo's background colour. */
export const BACKGROUND_TOLERANCE = 40;
/** The text font: DejaVu Sans (Debian's fonts-dejavu-core), present wherever the app runs; librsvg falls back to sans-serif. */
export const OVERLAY_FONT = "'DejaVu Sans', sans-serif";

const WHITE = { r: 255, g: 255, b: 255, alpha: 1 };

export interface RenderedImage {
  format: GalleryFormat;
  width: number;
  height: number;
  webp: Buffer;
  jpeg: Buffer;
  checks: MainImageChecks | null;
}

/** The colour of the photo's corners (their median per channel): the studio background to remove. */
function cornerColour(data: Buffer, width: number, height: number, channels: number): [number, number, number] {
  const corners = [0, width - 1, (height - 1) * width, height * width - 1].map((pixel) => pixel * channels);
  const channel = (c: number) => {
    const values = corners.map((offset) => data[offset + c]!).sort((a, b) => a - b);
    return Math.round((values[1]! + values[2]!) / 2);
  };
  return [channel(0), channel(1), channel(2)];
}

/**
 * The product alone on pure white, trimmed to its bounding box: pixels within BACKGROUND_TOLERANCE
 * of the corners' colour become white (a studio backdrop, even if grey), transparency becomes white.
 */
export async function isolateProduct(source: Buffer): Promise<{ data: Buffer; width: number; height: number }> {
  const { data, info } = await sharp(source).rotate().flatten({ background: WHITE }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const [br, bg, bb] = cornerColour(data, info.width, info.height, info.channels);
  for (let offset = 0; offset < data.length; offset += info.channels) {
    const distance = Math.max(Math.abs(data[offset]! - br), Math.abs(data[offset + 1]! - bg), Math.abs(data[offset + 2]! - bb));
    if (distance <= BACKGROUND_TOLERANCE) data.fill(255, offset, offset + 3);
  }
  const keyed = sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } });
  // trim() removes the (now white) border around the product; an all-white image has nothing to trim to.
  const trimmed = await keyed.trim({ background: '#ffffff', threshold: 10 }).png().toBuffer({ resolveWithObject: true }).catch(() => null);
  if (!trimmed || trimmed.info.width < 2 || trimmed.info.height < 2) throw new Error('No product could be found in the image (it looks empty).');
  return { data: trimmed.data, width: trimmed.info.width, height: trimmed.info.height };
}

/** Both outputs of one canvas: WebP (smaller, for the web and Shopping) and JPEG (accepted everywhere). */
async function encodeBoth(image: Sharp): Promise<{ webp: Buffer; jpeg: Buffer }> {
  const [webp, jpeg] = await Promise.all([image.clone().webp({ quality: 90 }).toBuffer(), image.clone().jpeg({ quality: 90, mozjpeg: true }).toBuffer()]);
  return { webp, jpeg };
}

/** The white square main image of `side` px, product centred at MAIN_PRODUCT_SHARE of the side, and its checks. */
export async function renderMainImage(source: Buffer, side: number): Promise<RenderedImage> {
  const product = await isolateProduct(source);
  const inner = Math.round(side * MAIN_PRODUCT_SHARE);
  const resized = await sharp(product.data).resize(inner, inner, { fit: 'inside', kernel: 'lanczos3' }).png().toBuffer({ resolveWithObject: true });
  const canvas = sharp({ create: { width: side, height: side, channels: 3, background: WHITE } }).composite([
    { input: resized.data, left: Math.round((side - resized.info.width) / 2), top: Math.round((side - resized.info.height) / 2) },
  ]);
  const flat = sharp(await canvas.png().toBuffer());
  const { webp, jpeg } = await encodeBoth(flat);
  // Checked on what users download: both files must pass.
  const checks = mergeChecks(await checkMainImage(jpeg), await checkMainImage(webp));
  return { format: 'main', width: side, height: side, webp, jpeg, checks };
}

function mergeChecks(a: MainImageChecks, b: MainImageChecks): MainImageChecks {
  const pick = (key: keyof MainImageChecks) => (a[key].pass ? b[key] : a[key]);
  return { whiteBorder: pick('whiteBorder'), productFill: pick('productFill'), minSize: pick('minSize') };
}

/**
 * The main image rules measured on the image's pixels: every border pixel 255,255,255; the bounding
 * box of non-white pixels >= 85 % of the frame on its longer side; >= 1000 px.
 */
export async function checkMainImage(image: Buffer): Promise<MainImageChecks> {
  const { data, info } = await sharp(image).flatten({ background: WHITE }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height, channels } = info;
  const isWhite = (x: number, y: number) => {
    const offset = (y * width + x) * channels;
    return data[offset] === 255 && data[offset + 1] === 255 && data[offset + 2] === 255;
  };
  let nonWhiteBorder = 0;
  for (let x = 0; x < width; x += 1) nonWhiteBorder += (isWhite(x, 0) ? 0 : 1) + (isWhite(x, height - 1) ? 0 : 1);
  for (let y = 1; y < height - 1; y += 1) nonWhiteBorder += (isWhite(0, y) ? 0 : 1) + (isWhite(width - 1, y) ? 0 : 1);
  let minX = width, minY = height, maxX = -1, maxY = -1;
  for (let y = 0; y < height; y += 1) {
    for (let x = 0; x < width; x += 1) {
      if (isWhite(x, y)) continue;
      if (x < minX) minX = x;
      if (x > maxX) maxX = x;
      if (y < minY) minY = y;
      if (y > maxY) maxY = y;
    }
  }
  const fill = maxX < 0 ? 0 : Math.max((maxX - minX + 1) / width, (maxY - minY + 1) / height);
  const shortSide = Math.min(width, height);
  return {
    whiteBorder: { pass: nonWhiteBorder === 0, value: String(nonWhiteBorder) },
    productFill: { pass: fill >= MIN_PRODUCT_FILL, value: `${Math.floor(fill * 1000) / 10}` },
    minSize: { pass: shortSide >= 1000, value: `${width}x${height}` },
  };
}

/** Text for SVG: the five XML special characters escaped, control characters dropped. */
export function escapeSvgText(text: string): string {
  return text
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

export interface SocialOverlay {
  brandColour: string;
  /** "-20 %" as the user's locale writes it, or null. */
  badge: string | null;
  /** The (sale) price in the store's currency, formatted in the user's locale, or null. */
  price: string | null;
  text: string;
}

/** The SVG drawn over a social image: badge top right, price and text in a band at the bottom. */
export function overlaySvg(width: number, height: number, overlay: SocialOverlay): string {
  const parts: string[] = [];
  if (overlay.badge) {
    const r = Math.round(width * 0.11);
    const cx = width - r - Math.round(width * 0.04);
    const cy = r + Math.round(width * 0.04);
    parts.push(`<circle cx="${cx}" cy="${cy}" r="${r}" fill="#DC2626"/>`);
    parts.push(`<text x="${cx}" y="${cy + Math.round(r * 0.2)}" font-family="${OVERLAY_FONT}" font-weight="bold" font-size="${Math.round(r * 0.55)}" fill="#FFFFFF" text-anchor="middle">${escapeSvgText(overlay.badge)}</text>`);
  }
  const lines = [overlay.price, overlay.text || null].filter((line): line is string => Boolean(line));
  if (lines.length) {
    const lineHeight = Math.round(width * 0.075);
    const bandHeight = lineHeight * lines.length + Math.round(width * 0.06);
    parts.push(`<rect x="0" y="${height - bandHeight}" width="${width}" height="${bandHeight}" fill="#000000" fill-opacity="0.55"/>`);
    lines.forEach((line, index) => {
      const y = height - bandHeight + Math.round(width * 0.03) + lineHeight * (index + 1) - Math.round(lineHeight * 0.22);
      const size = index === 0 && overlay.price ? Math.round(lineHeight * 0.8) : Math.round(lineHeight * 0.62);
      parts.push(`<text x="${width / 2}" y="${y}" font-family="${OVERLAY_FONT}" font-weight="bold" font-size="${size}" fill="#FFFFFF" text-anchor="middle">${escapeSvgText(line)}</text>`);
    });
  }
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">${parts.join('')}</svg>`;
}

function rgbOf(hex: string): { r: number; g: number; b: number; alpha: number } {
  return { r: parseInt(hex.slice(1, 3), 16), g: parseInt(hex.slice(3, 5), 16), b: parseInt(hex.slice(5, 7), 16), alpha: 1 };
}

/** A social format: the product on a white card over the brand colour, with the badge and text overlay. */
export async function renderSocialImage(source: Buffer, format: Exclude<ImageFormat, 'main'>, overlay: SocialOverlay): Promise<RenderedImage> {
  const { width, height } = SOCIAL_SIZES[format];
  const product = await isolateProduct(source);
  const card = Math.round(width * 0.74);
  const cardTop = Math.round((height - card) / 2 - (overlay.text || overlay.price ? height * 0.06 : 0));
  const productImage = await sharp(product.data).resize(Math.round(card * 0.86), Math.round(card * 0.86), { fit: 'inside' }).png().toBuffer({ resolveWithObject: true });
  const cardSvg = `<svg xmlns="http://www.w3.org/2000/svg" width="${card}" height="${card}"><rect width="${card}" height="${card}" rx="${Math.round(card * 0.06)}" fill="#FFFFFF"/></svg>`;
  const left = Math.round((width - card) / 2);
  const canvas = sharp({ create: { width, height, channels: 3, background: rgbOf(overlay.brandColour) } }).composite([
    { input: Buffer.from(cardSvg), left, top: cardTop },
    { input: productImage.data, left: left + Math.round((card - productImage.info.width) / 2), top: cardTop + Math.round((card - productImage.info.height) / 2) },
    { input: Buffer.from(overlaySvg(width, height, overlay)), left: 0, top: 0 },
  ]);
  const { webp, jpeg } = await encodeBoth(sharp(await canvas.png().toBuffer()));
  return { format, width, height, webp, jpeg, checks: null };
}

/** The badge's "-20 %" in the user's locale (fr/de put a space before %, en/es vary: Intl knows). */
export function discountBadge(percent: number, locale: string): string {
  return new Intl.NumberFormat(locale, { style: 'percent', signDisplay: 'always' }).format(-percent / 100);
}

export function formatPrice(minor: number, currency: string, locale: string): string {
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  return new Intl.NumberFormat(locale, { style: 'currency', currency }).format(minor / 10 ** digits);
}
