import { renderToString } from 'react-dom/server';
import { describe, expect, it } from 'vitest';
import { Router } from 'wouter';
import type { CampaignsOutput } from '../../../shared/marketing.ts';
import i18next from 'i18next';
import { initReactI18next } from 'react-i18next';
import marketing from '../../locales/en/marketing.json' with { type: 'json' };
import { CampaignsTable } from './campaigns-table.tsx';

await i18next.use(initReactI18next).init({ lng: 'en', resources: { en: { marketing } }, interpolation: { escapeValue: false } });

const figures = { impressions: 1_000, clicks: 50, ctr: 0.05, cpc: 20, cpm: 1_000, conversions: 2, conversionValue: 3_000, platformRoas: 3 };

function output(attribution: 'campaign' | 'platform'): CampaignsOutput {
  return {
    storeId: 1,
    platform: 'bingads',
    currency: 'GBP',
    range: { from: '2026-06-01', to: '2026-06-07' },
    previousRange: null,
    campaigns: [
      { accountId: 'a', campaignId: 'c1', name: 'Brand', spend: 1_000, ...figures, orders: attribution === 'campaign' ? 3 : 0, netSales: attribution === 'campaign' ? 4_500 : 0, roas: attribution === 'campaign' ? 4.5 : 0 },
    ],
    totals: { spend: 1_000, ...figures, orders: 3, netSales: 4_500, roas: 4.5 },
    previousTotals: null,
    deltas: {},
    attribution,
    unmatched: { orders: attribution === 'campaign' ? 0 : 3, netSales: attribution === 'campaign' ? 0 : 4_500 },
    series: [],
  };
}

function render(data: CampaignsOutput): string {
  return renderToString(
    <Router ssrPath="/bing-ads" ssrSearch="">
      <CampaignsTable data={data} />
    </Router>,
  );
}

describe('campaigns table', () => {
  it('shows our orders per campaign when orders name their campaign', () => {
    const html = render(output('campaign'));
    expect(html).toContain('data-attribution="campaign"');
    expect(html).toContain('£45.00'); // the campaign's and the total's net sales
    expect(html).toContain('4.50×');
  });

  it('without campaign tags, says our figures are blended and shows them in the total only', () => {
    const html = render(output('platform'));
    expect(html).toContain('data-attribution="platform"');
    expect(html).toContain('shown for Bing Ads as a whole (blended)');
    const row = html.slice(html.indexOf('data-testid="campaign-row"'), html.indexOf('</tr>', html.indexOf('data-testid="campaign-row"')));
    expect(row).not.toContain('£45.00');
    expect(row).toContain('—');
    const totals = html.slice(html.indexOf('data-testid="campaigns-totals"'));
    expect(totals).toContain('£45.00');
    expect(totals).toContain('4.50×');
  });
});
