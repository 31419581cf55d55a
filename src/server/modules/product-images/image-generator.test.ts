import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { redProductOnGrey } from './test-images.ts';
import { checkMainImage, discountBadge, escapeSvgText, overlaySvg, renderMainImage, renderSocialImage } from './image-generator.ts';

// The generator on real images made here with sharp: a red product photographed on a grey backdrop.

describe('the main image', () => {
  it('puts the product on a pure white 2000 px square at >= 85 % of the frame, and every check passes on both outputs', async () => {
    const main = await renderMainImage(await redProductOnGrey(), 2000);
    expect(main.checks).toEqual({
      whiteBorder: { pass: true, value: '0' },
      productFill: { pass: true, value: expect.any(String) },
      minSize: { pass: true, value: '2000x2000' },
    });
    expect(Number(main.checks!.productFill.value)).toBeGreaterThanOrEqual(85);
    for (const file of [main.webp, main.jpeg]) {
      const meta = await sharp(file).metadata();
      expect([meta.width, meta.height]).toEqual([2000, 2000]);
    }
    expect((await sharp(main.webp).metadata()).format).toBe('webp');
    expect((await sharp(main.jpeg).metadata()).format).toBe('jpeg');
    // The grey backdrop is gone: the centre is the product (red or blue), a corner is white.
    const { data } = await sharp(main.jpeg).extract({ left: 5, top: 5, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
    expect([...data]).toEqual([255, 255, 255]);
  });

  it('fails the white border check for a photo left on its grey backdrop, and the fill check for a small product', async () => {
    const grey = await sharp(await redProductOnGrey()).resize(1200, 1200, { fit: 'contain', background: { r: 200, g: 200, b: 200 } }).jpeg().toBuffer();
    const checks = await checkMainImage(grey);
    expect(checks.whiteBorder.pass).toBe(false);
    expect(Number(checks.whiteBorder.value)).toBeGreaterThan(4000);

    const small = await sharp({ create: { width: 1000, height: 1000, channels: 3, background: '#ffffff' } })
      .composite([{ input: await sharp({ create: { width: 500, height: 400, channels: 3, background: '#cc2222' } }).png().toBuffer(), left: 250, top: 300 }])
      .png()
      .toBuffer();
    expect(await checkMainImage(small)).toEqual({
      whiteBorder: { pass: true, value: '0' },
      productFill: { pass: false, value: '50' },
      minSize: { pass: true, value: '1000x1000' },
    });
  });

  it('fails the size check under 1000 px', async () => {
    const tiny = await sharp({ create: { width: 800, height: 800, channels: 3, background: '#ffffff' } }).png().toBuffer();
    expect((await checkMainImage(tiny)).minSize).toEqual({ pass: false, value: '800x800' });
  });
});

describe('the social formats', () => {
  it('renders 1080x1350 on the brand colour with the badge and the text', async () => {
    const image = await renderSocialImage(await redProductOnGrey(), 'portrait', { brandColour: '#1D4ED8', badge: discountBadge(20, 'fr'), price: '39,99 €', text: 'Soldes <d’hiver> & plus' });
    expect([image.width, image.height]).toEqual([1080, 1350]);
    expect((await sharp(image.jpeg).metadata()).height).toBe(1350);
    // The top-left corner is the brand colour (29,78,216), within JPEG's error.
    const { data } = await sharp(image.jpeg).extract({ left: 4, top: 4, width: 1, height: 1 }).raw().toBuffer({ resolveWithObject: true });
    expect(Math.abs(data[0]! - 29) + Math.abs(data[1]! - 78) + Math.abs(data[2]! - 216)).toBeLessThan(12);
    expect(image.webp.length).toBeLessThan(image.jpeg.length * 2);
  });

  it('formats the badge in the user locale', () => {
    expect(discountBadge(20, 'en')).toBe('-20%');
    expect(discountBadge(20, 'fr')).toMatch(/^-20\s%$/u);
    expect(discountBadge(20, 'de')).toMatch(/^-20\s%$/u);
  });
});

describe('SVG text', () => {
  it('escapes markup so typed text can never become SVG elements', () => {
    expect(escapeSvgText(`<script>"a" & 'b'</script>`)).toBe('&lt;script&gt;&quot;a&quot; &amp; &apos;b&apos;&lt;/script&gt;');
    const svg = overlaySvg(1080, 1080, { brandColour: '#000000', badge: null, price: null, text: '</text><image href="file:///etc/passwd"/>' });
    expect(svg).not.toContain('<image');
    expect(svg).toContain('&lt;/text&gt;&lt;image href=&quot;file:///etc/passwd&quot;/&gt;');
  });
});
