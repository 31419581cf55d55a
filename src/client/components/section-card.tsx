import type { HTMLAttributes, ReactNode } from 'react';

interface SectionCardProps extends Omit<HTMLAttributes<HTMLElement>, 'title'> {
  /** The id of the heading, which names the section. */
  titleId: string;
  title: ReactNode;
  description?: ReactNode;
  /** Beside the heading (a search box, buttons); wraps under it on narrow screens. */
  actions?: ReactNode;
  /** h2 for a section of the page, h3 inside a tab or a larger section. */
  headingLevel?: 2 | 3;
  testId?: string;
  children: ReactNode;
}

/** A bordered card of a data screen: a heading, an optional description and actions, then the content. */
export function SectionCard({ titleId, title, description, actions, headingLevel = 2, testId, className = '', children, ...rest }: SectionCardProps) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <section className={`card bg-base-100 border-base-content/10 min-w-0 border shadow-xs ${className}`} aria-labelledby={titleId} data-testid={testId} {...rest}>
      <div className="card-body gap-3 p-4 sm:p-6">
        <div className="flex flex-wrap items-start justify-between gap-3">
          <div className="min-w-0">
            <Heading id={titleId} className="card-title text-base">
              {title}
            </Heading>
            {description && <p className="text-base-content/70 text-sm">{description}</p>}
          </div>
          {actions}
        </div>
        {children}
      </div>
    </section>
  );
}
