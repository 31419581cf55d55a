import { MailIcon } from 'lucide-react';
import { siGoogleads, siMailchimp, siMeta, siShopify, siTiktok, siWoocommerce } from 'simple-icons';
import type { PlatformKey } from '../../shared/platforms.ts';

// Each platform's mark on a small white tile, in both themes: the brand's own logo (simple-icons) where
// it has one, a lettermark in the brand colour otherwise. Brand colours are made for white (TikTok's and
// Klaviyo's near-black, Omnisend's dark green, WooCommerce's purple would all sink into the dark
// surface), so the tile stays light; a colour too pale for white (Mailchimp's yellow) is darkened.

type LogoMark = { kind: 'icon'; path: string; hex: string; wide?: boolean } | { kind: 'letter'; letter: string; hex: string } | { kind: 'mail' };

const LOGOS: Record<PlatformKey, LogoMark> = {
  shopify: { kind: 'icon', path: siShopify.path, hex: siShopify.hex },
  // A wide wordmark with empty space above and below: drawn larger to match the others' weight.
  woocommerce: { kind: 'icon', path: siWoocommerce.path, hex: siWoocommerce.hex, wide: true },
  googleads: { kind: 'icon', path: siGoogleads.path, hex: siGoogleads.hex },
  metaads: { kind: 'icon', path: siMeta.path, hex: siMeta.hex },
  tiktokads: { kind: 'icon', path: siTiktok.path, hex: siTiktok.hex },
  mailchimp: { kind: 'icon', path: siMailchimp.path, hex: siMailchimp.hex },
  // Not in simple-icons: Microsoft Advertising (Bing's teal), Klaviyo and Omnisend.
  bingads: { kind: 'letter', letter: 'b', hex: '008373' },
  klaviyo: { kind: 'letter', letter: 'K', hex: '232426' },
  omnisend: { kind: 'letter', letter: 'O', hex: '3B7A57' },
  email: { kind: 'mail' },
};

/** WCAG's minimum contrast for graphics (1.4.11). */
const MIN_CONTRAST = 3;

function channels(hex: string): [number, number, number] {
  const value = Number.parseInt(hex, 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

function luminance(hex: string): number {
  const [r, g, b] = channels(hex).map((channel) => {
    const c = channel / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  }) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrastRatio(a: string, b: string): number {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (light + 0.05) / (dark + 0.05);
}

function mix(hex: string, toward: string, amount: number): string {
  const from = channels(hex);
  const to = channels(toward);
  return from.map((channel, index) => Math.round(channel + (to[index]! - channel) * amount).toString(16).padStart(2, '0')).join('');
}

/** The brand colour (hex without #), darkened until it contrasts 3:1 with the white tile every logo sits on, in both themes. */
export function readableBrandColor(hex: string): string {
  let color = hex.toLowerCase();
  for (let step = 1; step <= 10 && contrastRatio(color, 'ffffff') < MIN_CONTRAST; step++) color = mix(hex.toLowerCase(), '000000', step / 10);
  return color;
}

export function PlatformLogo({ platform, className = 'size-11' }: { platform: PlatformKey; className?: string }) {
  const mark = LOGOS[platform];
  const tile = `border-base-content/10 grid bg-white shrink-0 place-items-center rounded-xl border shadow-xs ${className}`;
  if (mark.kind === 'mail') {
    return (
      <span className={`${tile} text-2xl text-neutral-700`} aria-hidden="true" data-testid="platform-logo">
        <MailIcon />
      </span>
    );
  }
  const color = `#${readableBrandColor(mark.hex)}`;
  return (
    <span className={tile} aria-hidden="true" data-testid="platform-logo">
      {mark.kind === 'icon' ? (
        <svg viewBox="0 0 24 24" className={mark.wide ? 'size-10' : 'size-6'} fill={color} role="presentation">
          <path d={mark.path} />
        </svg>
      ) : (
        <span className="text-xl leading-none font-black tracking-tight" style={{ color }}>
          {mark.letter}
        </span>
      )}
    </span>
  );
}
