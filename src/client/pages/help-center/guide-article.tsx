import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { LightbulbIcon } from 'lucide-react';
import type { Guide, GuideBlock } from './guides.ts';

function Block({ block }: { block: GuideBlock }) {
  const { t } = useTranslation('help');
  switch (block.type) {
    case 'p':
      return <p className="text-base-content/85 leading-relaxed">{block.text}</p>;
    case 'steps':
      return (
        <ol className="space-y-3">
          {block.items.map((item, index) => (
            <li key={index} className="flex gap-3">
              <span
                className="bg-primary/10 border-primary/40 text-base-content mt-0.5 grid size-7 shrink-0 place-items-center rounded-full border text-sm font-semibold"
                aria-hidden="true"
              >
                {index + 1}
              </span>
              <span className="text-base-content/85 pt-0.5 leading-relaxed">{item}</span>
            </li>
          ))}
        </ol>
      );
    case 'terms':
      return (
        <dl className="divide-base-content/10 border-base-content/10 rounded-box divide-y border">
          {block.items.map((item) => (
            <div key={item.term} className="grid gap-1 px-4 py-3 sm:grid-cols-[12rem_minmax(0,1fr)] sm:gap-4">
              <dt className="font-semibold">{item.term}</dt>
              <dd className="text-base-content/85 leading-relaxed">{item.text}</dd>
            </div>
          ))}
        </dl>
      );
    case 'tip':
      return (
        <div className="bg-primary/5 border-primary/25 rounded-box flex gap-3 border p-4">
          <LightbulbIcon className="text-primary mt-0.5 shrink-0 text-lg" />
          <p className="leading-relaxed">
            <span className="font-semibold">{t('guide.tip')}: </span>
            {block.text}
          </p>
        </div>
      );
  }
}

/** One guide, rendered from its blocks, with links to the others of its topic. */
export function GuideArticle({ guide, related }: { guide: Guide; related: readonly Guide[] }) {
  const { t } = useTranslation('help');
  const topicTitle = t(`topics.${guide.topic}.title`);
  return (
    <div className="space-y-6">
      <article aria-labelledby="guide-title" className="card bg-base-100 border-base-content/10 border shadow-sm">
        <div className="card-body gap-5 p-5 sm:p-8">
          <header className="space-y-2">
            <span className="badge badge-outline border-primary/50 text-base-content">{topicTitle}</span>
            <h2 id="guide-title" className="text-2xl font-bold tracking-tight text-balance">
              {guide.title}
            </h2>
            <p className="text-base-content/70 text-lg leading-relaxed">{guide.summary}</p>
          </header>
          <div className="space-y-5">
            {guide.sections.map((block, index) => (
              <Block key={index} block={block} />
            ))}
          </div>
          <p className="text-base-content/70 border-base-content/10 border-t pt-4 text-sm">
            {t('guide.stillStuck')}{' '}
            <a href="#contact" className="link decoration-primary underline-offset-2 font-medium">
              {t('guide.contactLink')}
            </a>
          </p>
        </div>
      </article>

      {related.length > 0 && (
        <nav aria-labelledby="related-title">
          <h3 id="related-title" className="text-base-content/70 mb-3 text-sm font-semibold tracking-wide uppercase">
            {t('guide.moreIn', { topic: topicTitle })}
          </h3>
          <ul className="grid gap-3 sm:grid-cols-2">
            {related.map((other) => (
              <li key={other.slug}>
                <Link
                  href={`/help-center?guide=${other.slug}`}
                  className="bg-base-100 border-base-content/10 hover:border-primary/50 rounded-box block h-full border p-4 transition-colors"
                >
                  <span className="font-medium">{other.title}</span>
                  <span className="text-base-content/70 mt-1 line-clamp-2 block text-sm">{other.summary}</span>
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      )}
    </div>
  );
}
