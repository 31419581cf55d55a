import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'wouter';
import { Brand } from '../../components/brand.tsx';
import { LanguageMenu } from '../../components/language-menu.tsx';
import { ThemeMenu } from '../../components/theme-menu.tsx';
import { formattingLocale } from './date-locale.ts';
import { LEGAL_LAST_UPDATED, LEGAL_SECTIONS, type LegalDocumentKey } from './legal-sections.ts';

const PATHS: Record<LegalDocumentKey, string> = { privacy: '/privacy-policy', terms: '/terms-of-service' };

type LegalBlock =
  | { type: 'p'; text: string }
  | { type: 'list'; items: string[] }
  | { type: 'defs'; items: { term: string; text: string }[] };

function Block({ block }: { block: LegalBlock }) {
  switch (block.type) {
    case 'p':
      return <p>{block.text}</p>;
    case 'list':
      return (
        <ul className="marker:text-primary list-disc space-y-2 pl-5">
          {block.items.map((item, index) => (
            <li key={index} className="pl-1">
              {item}
            </li>
          ))}
        </ul>
      );
    case 'defs':
      return (
        <dl className="space-y-3">
          {block.items.map((item) => (
            <div key={item.term}>
              <dt className="text-base-content font-semibold">{item.term}</dt>
              <dd>{item.text}</dd>
            </div>
          ))}
        </dl>
      );
  }
}

function TableOfContents({ document }: { document: LegalDocumentKey }) {
  const { t } = useTranslation('legal');
  return (
    <ol className="space-y-1 text-sm">
      {LEGAL_SECTIONS[document].map((id, index) => (
        <li key={id}>
          <a
            href={`#${id}`}
            className="text-base-content/75 hover:text-base-content hover:bg-base-200 flex gap-2 rounded-md px-2 py-1.5 transition-colors"
          >
            <span className="text-base-content/70 w-5 shrink-0 text-right tabular-nums">{index + 1}.</span>
            <span>{t(`${document}.sections.${id}.title`)}</span>
          </a>
        </li>
      ))}
    </ol>
  );
}

/** A public legal page: brand header, back link, date, table of contents and the text at reading width. */
export function LegalDocument({ document }: { document: LegalDocumentKey }) {
  const { t, i18n } = useTranslation('legal');
  const [, navigate] = useLocation();
  const other: LegalDocumentKey = document === 'privacy' ? 'terms' : 'privacy';
  const lastUpdated = new Intl.DateTimeFormat(formattingLocale(i18n.resolvedLanguage), { dateStyle: 'long', timeZone: 'UTC' }).format(
    new Date(`${LEGAL_LAST_UPDATED}T12:00:00Z`),
  );

  function goBack() {
    if (window.history.length > 1) window.history.back();
    else navigate('/');
  }

  return (
    <div id="top" className="flex min-h-screen flex-col">
      <header className="bg-base-100/95 border-base-content/10 sticky top-0 z-10 border-b backdrop-blur">
        <div className="mx-auto flex h-16 w-full max-w-6xl items-center gap-2 px-4 sm:px-6">
          <Link href="/" className="shrink-0 rounded-lg" aria-label={t('common.home')}>
            <Brand />
          </Link>
          <div className="ml-auto flex items-center gap-1">
            <LanguageMenu />
            <ThemeMenu />
          </div>
        </div>
      </header>

      <main className="mx-auto w-full max-w-6xl flex-1 px-4 py-6 sm:px-6 sm:py-10">
        <button type="button" onClick={goBack} className="btn btn-ghost btn-sm -ml-2 gap-1.5">
          <svg viewBox="0 0 24 24" width="1em" height="1em" fill="none" stroke="currentColor" strokeWidth={2} strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
            <path d="M19 12H5M12 19l-7-7 7-7" />
          </svg>
          {t('common.back')}
        </button>

        <div className="mt-4 grid gap-8 lg:grid-cols-[15rem_minmax(0,1fr)] lg:gap-12">
          <nav aria-label={t('common.contents')} className="hidden lg:block">
            <div className="sticky top-24">
              <p className="text-base-content/70 mb-2 px-2 text-xs font-semibold tracking-wider uppercase">{t('common.contents')}</p>
              <TableOfContents document={document} />
            </div>
          </nav>

          <article className="min-w-0" aria-labelledby="legal-title">
            <header className="border-base-content/10 max-w-[68ch] border-b pb-6">
              <h1 id="legal-title" className="text-3xl font-bold tracking-tight sm:text-4xl">
                {t(`${document}.title`)}
              </h1>
              <p className="text-base-content/70 mt-2 text-sm">{t('common.lastUpdated', { date: lastUpdated })}</p>
              <p className="text-base-content/80 mt-4 text-lg leading-relaxed">{t(`${document}.intro`)}</p>
            </header>

            <details className="collapse-arrow bg-base-100 border-base-content/10 rounded-box collapse mt-6 max-w-[68ch] border lg:hidden">
              <summary className="collapse-title font-semibold">{t('common.contents')}</summary>
              <nav aria-label={t('common.contents')} className="collapse-content">
                <TableOfContents document={document} />
              </nav>
            </details>

            <div className="mt-8 max-w-[68ch] space-y-10">
              {LEGAL_SECTIONS[document].map((id, index) => {
                const blocks = t(`${document}.sections.${id}.blocks`, { returnObjects: true }) as unknown;
                return (
                  <section key={id} id={id} aria-labelledby={`${id}-title`} className="scroll-mt-24">
                    <h2 id={`${id}-title`} className="text-xl font-semibold tracking-tight">
                      <span className="text-primary mr-2 font-bold tabular-nums">{index + 1}.</span>
                      {t(`${document}.sections.${id}.title`)}
                    </h2>
                    <div className="text-base-content/80 mt-3 space-y-4 leading-relaxed">
                      {(Array.isArray(blocks) ? (blocks as LegalBlock[]) : []).map((block, blockIndex) => (
                        <Block key={blockIndex} block={block} />
                      ))}
                    </div>
                    {id === 'contact' && (
                      <Link href="/help-center#contact" className="btn btn-primary btn-sm mt-4">
                        {t('common.helpCenter')}
                      </Link>
                    )}
                  </section>
                );
              })}
            </div>

            <div className="border-base-content/10 mt-12 flex max-w-[68ch] flex-wrap items-center justify-between gap-3 border-t pt-6 text-sm">
              <p>
                <span className="text-base-content/70">{t('common.seeAlso')}: </span>
                <Link href={PATHS[other]} className="link decoration-primary underline-offset-2 font-medium">
                  {t(other === 'privacy' ? 'common.privacyPolicy' : 'common.termsOfService')}
                </Link>
              </p>
              <a href="#top" className="link link-hover text-base-content/70">
                {t('common.backToTop')}
              </a>
            </div>
          </article>
        </div>
      </main>

      <footer className="border-base-content/10 bg-base-100 border-t">
        <div className="text-base-content/70 mx-auto flex w-full max-w-6xl flex-col gap-2 px-4 py-6 text-xs sm:flex-row sm:items-center sm:justify-between sm:px-6">
          <p>{t('common.footer')}</p>
          <p className="flex gap-4">
            <Link href="/privacy-policy" className="link link-hover">
              {t('common.privacyPolicy')}
            </Link>
            <Link href="/terms-of-service" className="link link-hover">
              {t('common.termsOfService')}
            </Link>
          </p>
        </div>
      </footer>
    </div>
  );
}
