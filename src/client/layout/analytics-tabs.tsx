import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { scrollSelectedIntoRow, useScrollEdges } from '../lib/scroll-edges.ts';
import { ANALYTICS_SECTION, isActivePath } from './navigation.ts';

/**
 * The Analytics section's sub-navigation, above each of its screens: Overview (/analytics), Revenue,
 * Profit & Loss and Performance distribution. The sidebar's Analytics entry stands for all four, so
 * these are one click from it, on a phone too (where the row scrolls sideways if it must).
 */
export function AnalyticsTabs({ path }: { path: string }) {
  const { t } = useTranslation('shell');
  const { ref, edges } = useScrollEdges<HTMLDivElement>();
  // On a phone the row scrolls sideways: the current tab is brought into view.
  useEffect(() => scrollSelectedIntoRow(ref.current, '[aria-current="page"]'), [path, ref]);
  return (
    <nav aria-label={t('nav.analyticsSection.label')} className="mx-auto mb-6 max-w-7xl" data-testid="analytics-tabs">
      <div
        ref={ref}
        // Where more tabs hide, the edge fades out, so a cut reads as "scroll".
        className={`border-base-content/10 relative -mx-4 overflow-x-auto border-b px-4 sm:mx-0 sm:px-0 ${edges.left ? 'mask-l-from-[calc(100%-2.5rem)]' : ''} ${edges.right ? 'mask-r-from-[calc(100%-2.5rem)]' : ''}`}
      >
        <ul className="flex min-w-max gap-1">
          {ANALYTICS_SECTION.map((tab) => {
            const current = isActivePath(tab.href, path);
            return (
              <li key={tab.key}>
                <Link
                  href={tab.href}
                  aria-current={current ? 'page' : undefined}
                  data-testid={`analytics-tab-${tab.key}`}
                  className={`-mb-px inline-flex items-center border-b-2 px-3 py-2.5 text-sm whitespace-nowrap transition-colors ${
                    current
                      ? 'border-primary text-base-content font-semibold'
                      : 'text-base-content/75 hover:text-base-content hover:border-base-content/25 border-transparent'
                  }`}
                >
                  {t(`nav.analyticsSection.tabs.${tab.key}`)}
                </Link>
              </li>
            );
          })}
        </ul>
      </div>
    </nav>
  );
}
