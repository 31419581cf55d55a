import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { scrollSelectedIntoRow, useScrollEdges } from '../lib/scroll-edges.ts';
import { isActivePath, type NavSection } from './navigation.ts';

/**
 * A section's sub-navigation, above each of its screens: Analytics (Overview, Revenue, Profit & Loss,
 * Performance distribution) or Advertising (Google Ads, Meta Ads, Bing Ads). The screens the sidebar
 * does not list are one click from it this way, on a phone too (where the row scrolls sideways if it must).
 */
export function SectionTabs({ section, path }: { section: NavSection; path: string }) {
  const { t } = useTranslation('shell');
  const { ref, edges } = useScrollEdges<HTMLDivElement>();
  // On a phone the row scrolls sideways: the current tab is brought into view.
  useEffect(() => scrollSelectedIntoRow(ref.current, '[aria-current="page"]'), [path, ref]);
  return (
    <nav aria-label={t(section.labelKey)} className="mx-auto mb-6 max-w-7xl" data-testid={`${section.key}-tabs`}>
      <div
        ref={ref}
        // Where more tabs hide, the edge fades out, so a cut reads as "scroll".
        className={`border-base-content/10 relative -mx-4 overflow-x-auto border-b px-4 sm:mx-0 sm:px-0 ${edges.left ? 'mask-l-from-[calc(100%-2.5rem)]' : ''} ${edges.right ? 'mask-r-from-[calc(100%-2.5rem)]' : ''}`}
      >
        <ul className="flex min-w-max gap-1">
          {section.tabs.map((tab) => {
            const current = isActivePath(tab.href, path);
            return (
              <li key={tab.href}>
                <Link
                  href={tab.href}
                  aria-current={current ? 'page' : undefined}
                  className={`-mb-px inline-flex items-center border-b-2 px-3 py-2.5 text-sm whitespace-nowrap transition-colors ${
                    current
                      ? 'border-primary text-base-content font-semibold'
                      : 'text-base-content/75 hover:text-base-content hover:border-base-content/25 border-transparent'
                  }`}
                >
                  {t(tab.labelKey)}
                </Link>
              </li>
            );
          })}
        </ul>
      </div>
    </nav>
  );
}
