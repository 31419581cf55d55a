import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TrackingSetup } from '../../../shared/tracking.ts';
import { SectionCard } from '../../components/section-card.tsx';
import { CodeBlock } from './code-block.tsx';
import {
  anySiteCode,
  cloudflareWorkerCode,
  FIRST_PARTY_PROXY_PATH,
  firstPartyTag,
  gtmCode,
  nginxCode,
  shopifyCustomPixelCode,
  shopifyThemeCode,
  wooCommerceCode,
} from './install-code.ts';

const PLATFORMS = ['shopify', 'woocommerce', 'anySite', 'gtm'] as const;
type Platform = (typeof PLATFORMS)[number];

function Steps({ items }: { items: string[] }) {
  return (
    <ol className="list-decimal space-y-1 pl-5 text-sm">
      {items.map((item) => (
        <li key={item}>{item}</li>
      ))}
    </ol>
  );
}

function PlatformPanel({ platform, setup }: { platform: Platform; setup: TrackingSetup }) {
  const { t } = useTranslation('tracking-setup');
  const steps = (key: string) => t(`install.${platform}.${key}`, { returnObjects: true }) as string[];
  switch (platform) {
    case 'shopify':
      return (
        <div className="space-y-4">
          <h3 className="font-medium">{t('install.shopify.themeTitle')}</h3>
          <Steps items={steps('themeSteps')} />
          <CodeBlock code={shopifyThemeCode(setup)} label={t('install.shopify.themeLabel')} testId="shopify-theme-code" />
          <h3 className="font-medium">{t('install.shopify.pixelTitle')}</h3>
          <Steps items={steps('pixelSteps')} />
          <CodeBlock code={shopifyCustomPixelCode(setup)} label={t('install.shopify.pixelLabel')} testId="shopify-pixel-code" />
          <p className="text-base-content/70 text-sm">{t('install.shopify.note')}</p>
        </div>
      );
    case 'woocommerce':
      return (
        <div className="space-y-4">
          <Steps items={steps('steps')} />
          <CodeBlock code={wooCommerceCode(setup)} label={t('install.woocommerce.label')} testId="woocommerce-code" />
          <p className="text-base-content/70 text-sm">{t('install.woocommerce.note')}</p>
        </div>
      );
    case 'anySite':
      return (
        <div className="space-y-4">
          <Steps items={steps('steps')} />
          <CodeBlock code={anySiteCode(setup)} label={t('install.anySite.label')} testId="any-site-code" />
        </div>
      );
    case 'gtm': {
      const code = gtmCode(setup);
      return (
        <div className="space-y-4">
          <Steps items={steps('steps')} />
          <CodeBlock code={code.allPages} label={t('install.gtm.allPagesLabel')} testId="gtm-code" />
          <Steps items={steps('purchaseSteps')} />
          <CodeBlock code={code.purchase} label={t('install.gtm.purchaseLabel')} />
        </div>
      );
    }
  }
}

/** Install steps per platform, in tabs. */
export function InstallSteps({ setup }: { setup: TrackingSetup }) {
  const { t } = useTranslation('tracking-setup');
  const [platform, setPlatform] = useState<Platform>('shopify');
  return (
    <SectionCard titleId="tracking-install" title={t('install.title')} description={t('install.description')} testId="tracking-install" id="install">
      <div role="tablist" aria-label={t('install.tabsLabel')} className="tabs tabs-box w-full overflow-x-auto sm:w-fit">
        {PLATFORMS.map((option) => (
          <button
            key={option}
            id={`install-tab-${option}`}
            type="button"
            role="tab"
            aria-selected={platform === option}
            aria-controls="install-panel"
            className={`tab whitespace-nowrap ${platform === option ? 'tab-active' : 'text-base-content/80!'}`}
            onClick={() => setPlatform(option)}
          >
            {t(`install.tabs.${option}`)}
          </button>
        ))}
      </div>
      <div id="install-panel" role="tabpanel" aria-labelledby={`install-tab-${platform}`} className="min-w-0">
        <PlatformPanel platform={platform} setup={setup} />
      </div>
    </SectionCard>
  );
}

/** Serving the pixel under the shop's own site: reverse proxy (preferred), CNAME (fallback), and what Safari allows. */
export function FirstPartySetup({ setup }: { setup: TrackingSetup }) {
  const { t } = useTranslation('tracking-setup');
  const [proxy, setProxy] = useState<'nginx' | 'cloudflare'>('nginx');
  return (
    <SectionCard titleId="tracking-first-party" title={t('firstParty.title')} description={t('firstParty.description')} testId="tracking-first-party">
      <div className="space-y-3">
        <h3 className="flex flex-wrap items-center gap-2 font-medium">
          {t('firstParty.proxyTitle')}
          <span className="badge badge-success badge-soft badge-sm">{t('firstParty.preferred')}</span>
        </h3>
        <p className="text-sm">{t('firstParty.proxyBody', { path: FIRST_PARTY_PROXY_PATH })}</p>
        <div role="tablist" aria-label={t('firstParty.proxyTabsLabel')} className="tabs tabs-border">
          {(['nginx', 'cloudflare'] as const).map((option) => (
            <button
              key={option}
              type="button"
              role="tab"
              aria-selected={proxy === option}
              className={`tab ${proxy === option ? 'tab-active' : 'text-base-content/80!'}`}
              onClick={() => setProxy(option)}
            >
              {t(`firstParty.${option}`)}
            </button>
          ))}
        </div>
        <div role="tabpanel" className="min-w-0">
          {proxy === 'nginx' ? (
            <CodeBlock code={nginxCode(setup)} label={t('firstParty.nginxLabel')} />
          ) : (
            <CodeBlock code={cloudflareWorkerCode(setup)} label={t('firstParty.cloudflareLabel')} />
          )}
        </div>
        <CodeBlock code={firstPartyTag(setup, `https://shop.example.com${FIRST_PARTY_PROXY_PATH}`)} label={t('firstParty.proxyTagLabel')} />
      </div>
      <div className="divider my-0" />
      <div className="space-y-3">
        <h3 className="flex flex-wrap items-center gap-2 font-medium">
          {t('firstParty.cnameTitle')}
          <span className="badge badge-warning badge-soft badge-sm">{t('firstParty.fallback')}</span>
        </h3>
        <p className="text-sm">{t('firstParty.cnameBody')}</p>
        <CodeBlock code={firstPartyTag(setup, 'https://t.shop.example.com')} label={t('firstParty.cnameTagLabel')} />
      </div>
      <div role="note" className="alert alert-info alert-soft text-sm">
        <div className="space-y-1">
          <p className="font-medium">{t('firstParty.safariTitle')}</p>
          <p>{t('firstParty.safariBody')}</p>
        </div>
      </div>
    </SectionCard>
  );
}
