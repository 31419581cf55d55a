import { useEffect, type ComponentType, type KeyboardEvent, type SVGProps } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation, useSearch } from 'wouter';
import { ArrowLeftIcon, BookOpenIcon, ChartLineIcon, ChevronRightIcon, PlugIcon, RocketIcon, SearchIcon, ShieldCheckIcon, WrenchIcon, XIcon } from 'lucide-react';
import { useSession } from '../../lib/session.ts';
import { ContactSupportForm } from './contact-support-form.tsx';
import { GuideArticle } from './guide-article.tsx';
import { allGuides, GUIDES_BY_TOPIC, guideFor, isTopic, searchGuides, TOPICS, type Guide, type Topic } from './guides.ts';

const TOPIC_ICONS: Record<Topic, ComponentType<SVGProps<SVGSVGElement>>> = {
  gettingStarted: RocketIcon,
  features: ChartLineIcon,
  integrations: PlugIcon,
  troubleshooting: WrenchIcon,
};

/** The help centre's state lives in the URL (?q=, ?topic=, ?guide=) so reloading or sharing keeps it. */
function helpCenterHref(params: { q?: string | null; topic?: string | null; guide?: string | null }): string {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) if (value) search.set(key, value);
  const query = search.toString();
  return query ? `/help-center?${query}` : '/help-center';
}

function GuideLinkList({ guides, from }: { guides: readonly Guide[]; from?: string }) {
  const { t } = useTranslation('help');
  return (
    <ul className="divide-base-content/10 border-base-content/10 bg-base-100 rounded-box divide-y border shadow-sm">
      {guides.map((guide) => (
        <li key={guide.slug}>
          <Link
            href={helpCenterHref({ guide: guide.slug, q: from ?? null })}
            className="hover:bg-base-200/60 focus-visible:bg-base-200/60 group flex items-center gap-3 px-4 py-4 transition-colors first:rounded-t-box last:rounded-b-box sm:px-5"
          >
            <BookOpenIcon className="text-primary shrink-0 text-lg" />
            <span className="min-w-0 flex-1">
              <span className="block font-medium">{guide.title}</span>
              <span className="text-base-content/70 mt-0.5 block text-sm leading-snug">{guide.summary}</span>
              {from !== undefined && (
                <span className="text-base-content/70 mt-1 block text-xs">{t(`topics.${guide.topic}.title`)}</span>
              )}
            </span>
            <ChevronRightIcon className="text-base-content/40 group-hover:text-primary shrink-0 transition-colors" aria-hidden="true" />
            <span className="sr-only">{t('guide.readGuide')}</span>
          </Link>
        </li>
      ))}
    </ul>
  );
}

function TopicTabs({ selected, onSelect }: { selected: Topic; onSelect: (topic: Topic) => void }) {
  const { t } = useTranslation('help');
  function onKeyDown(event: KeyboardEvent<HTMLDivElement>) {
    const index = TOPICS.indexOf(selected);
    const next =
      event.key === 'ArrowRight' || event.key === 'ArrowDown'
        ? TOPICS[(index + 1) % TOPICS.length]
        : event.key === 'ArrowLeft' || event.key === 'ArrowUp'
          ? TOPICS[(index + TOPICS.length - 1) % TOPICS.length]
          : event.key === 'Home'
            ? TOPICS[0]
            : event.key === 'End'
              ? TOPICS[TOPICS.length - 1]
              : undefined;
    if (!next) return;
    event.preventDefault();
    onSelect(next);
    document.getElementById(`topic-tab-${next}`)?.focus();
  }
  return (
    <div role="tablist" aria-label={t('topics.label')} className="grid grid-cols-2 gap-3 lg:grid-cols-4" onKeyDown={onKeyDown}>
      {TOPICS.map((topic) => {
        const Icon = TOPIC_ICONS[topic];
        const active = topic === selected;
        return (
          <button
            key={topic}
            id={`topic-tab-${topic}`}
            type="button"
            role="tab"
            aria-selected={active}
            aria-controls="topic-panel"
            tabIndex={active ? 0 : -1}
            onClick={() => onSelect(topic)}
            className={`rounded-box flex flex-col items-start gap-2 border p-4 text-left transition-colors ${
              active
                ? 'border-primary bg-primary/5 ring-primary/30 ring-1'
                : 'border-base-content/10 bg-base-100 hover:border-primary/40'
            }`}
          >
            <span
              className={`grid size-9 place-items-center rounded-lg text-lg ${active ? 'bg-primary text-primary-content' : 'bg-primary/10 text-primary'}`}
              aria-hidden="true"
            >
              <Icon />
            </span>
            <span className="font-semibold leading-tight">{t(`topics.${topic}.title`)}</span>
            <span className="text-base-content/70 hidden text-sm leading-snug sm:block">{t(`topics.${topic}.description`)}</span>
            <span className="text-base-content/70 text-xs">{t('topics.guideCount', { count: GUIDES_BY_TOPIC[topic].length })}</span>
          </button>
        );
      })}
    </div>
  );
}

export function HelpCenterPage() {
  const { t } = useTranslation('help');
  const search = useSearch();
  const [, navigate] = useLocation();
  const session = useSession();
  const params = new URLSearchParams(search);
  const query = params.get('q') ?? '';
  const slug = params.get('guide');
  const topicParam = params.get('topic');

  const guides = allGuides(t);
  const guide = slug ? guideFor(t, slug) : null;
  const selectedTopic: Topic = guide?.topic ?? (isTopic(topicParam) ? topicParam : 'gettingStarted');
  const results = searchGuides(guides, query);
  const searching = query.trim().length > 0 && !slug;

  // Opening a guide starts at its top, like a new page.
  useEffect(() => {
    if (slug) window.scrollTo({ top: 0 });
  }, [slug]);

  // Arriving from a link to /help-center#contact (the legal pages) shows the form.
  useEffect(() => {
    if (window.location.hash === '#contact') document.getElementById('contact')?.scrollIntoView();
  }, []);

  const user = session.status === 'signedIn' ? session.user : null;

  let content;
  if (slug && !guide) {
    content = (
      <div role="alert" className="card bg-base-100 border-base-content/10 border">
        <div className="card-body items-start">
          <h2 className="card-title">{t('guide.notFoundTitle')}</h2>
          <p className="text-base-content/70">{t('guide.notFoundBody')}</p>
          <Link href="/help-center" className="btn btn-primary btn-sm mt-2">
            {t('guide.allGuides')}
          </Link>
        </div>
      </div>
    );
  } else if (guide) {
    const fromSearch = query.trim().length > 0;
    content = (
      <div className="space-y-4">
        <nav aria-label={t('guide.breadcrumb')} className="breadcrumbs py-0 text-sm">
          <ul>
            <li>
              <Link href={fromSearch ? helpCenterHref({ q: query }) : helpCenterHref({ topic: guide.topic })} className="gap-1.5">
                <ArrowLeftIcon />
                {fromSearch ? t('guide.backToResults') : t('guide.allGuides')}
              </Link>
            </li>
            <li>
              <Link href={helpCenterHref({ topic: guide.topic })}>{t(`topics.${guide.topic}.title`)}</Link>
            </li>
          </ul>
        </nav>
        <GuideArticle
          guide={guide}
          related={GUIDES_BY_TOPIC[guide.topic].filter((other) => other !== guide.slug).map((other) => guideFor(t, other)!)}
        />
      </div>
    );
  } else if (searching) {
    content = (
      <section aria-labelledby="search-results-title" className="space-y-3">
        <h2 id="search-results-title" className="text-base-content/80 text-sm font-medium" aria-live="polite">
          {results.length > 0 ? t('search.results', { count: results.length, query: query.trim() }) : t('search.noResultsTitle', { query: query.trim() })}
        </h2>
        {results.length > 0 ? (
          <GuideLinkList guides={results} from={query} />
        ) : (
          <div className="bg-base-100 border-base-content/20 rounded-box border border-dashed px-6 py-10 text-center">
            <SearchIcon className="text-base-content/40 mx-auto text-3xl" />
            <p className="text-base-content/70 mx-auto mt-3 max-w-md text-sm leading-relaxed">{t('search.noResultsBody')}</p>
            <div className="mt-5 flex flex-wrap justify-center gap-2">
              <Link href="/help-center" className="btn btn-sm">
                {t('search.showAll')}
              </Link>
              <a href="#contact" className="btn btn-primary btn-sm">
                {t('guide.contactLink')}
              </a>
            </div>
          </div>
        )}
      </section>
    );
  } else {
    content = (
      <div className="space-y-4">
        <TopicTabs selected={selectedTopic} onSelect={(topic) => navigate(helpCenterHref({ topic }), { replace: true })} />
        <div id="topic-panel" role="tabpanel" aria-labelledby={`topic-tab-${selectedTopic}`}>
          <GuideLinkList guides={GUIDES_BY_TOPIC[selectedTopic].map((other) => guideFor(t, other)!)} />
        </div>
      </div>
    );
  }

  return (
    <div className="mx-auto w-full max-w-6xl space-y-6">
      <header>
        <h1 className="text-2xl font-bold tracking-tight sm:text-3xl">{t('title')}</h1>
        <p className="text-base-content/70 mt-1">{t('subtitle')}</p>
      </header>

      <search role="search">
        <label htmlFor="help-search" className="sr-only">
          {t('search.label')}
        </label>
        <div className="input sm:input-lg bg-base-100 w-full gap-3 shadow-sm">
          <SearchIcon className="text-base-content/50 shrink-0" />
          <input
            id="help-search"
            type="search"
            className="grow"
            placeholder={t('search.placeholder')}
            value={query}
            autoComplete="off"
            onChange={(event) => navigate(helpCenterHref({ q: event.target.value }), { replace: true })}
          />
          {query && (
            <button
              type="button"
              className="btn btn-ghost btn-sm btn-circle"
              aria-label={t('search.clear')}
              onClick={() => {
                navigate(helpCenterHref({ topic: slug ? null : topicParam }), { replace: true });
                document.getElementById('help-search')?.focus();
              }}
            >
              <XIcon />
            </button>
          )}
        </div>
      </search>

      <div className="grid items-start gap-6 lg:grid-cols-[minmax(0,1fr)_22rem]">
        <div className="min-w-0">{content}</div>
        <aside className="space-y-6 lg:sticky lg:top-24">
          <ContactSupportForm defaultName={user?.username ?? ''} defaultEmail={user?.email ?? ''} />
          <section aria-labelledby="privacy-card-title" className="bg-base-100 border-base-content/10 rounded-box flex gap-3 border p-5 shadow-sm">
            <ShieldCheckIcon className="text-primary mt-0.5 shrink-0 text-xl" />
            <div className="space-y-1.5">
              <h2 id="privacy-card-title" className="font-semibold">
                {t('privacy.title')}
              </h2>
              <p className="text-base-content/70 text-sm leading-relaxed">{t('privacy.body')}</p>
              <p className="flex flex-wrap gap-x-4 gap-y-1 pt-1 text-sm">
                <Link href="/privacy-policy" className="link decoration-primary underline-offset-2 font-medium">
                  {t('privacy.policyLink')}
                </Link>
                <Link href="/terms-of-service" className="link link-hover text-base-content/70">
                  {t('privacy.termsLink')}
                </Link>
              </p>
            </div>
          </section>
        </aside>
      </div>
    </div>
  );
}
