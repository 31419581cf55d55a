import { ArrowRightIcon, PlugIcon } from 'lucide-react';
import type { ReactNode } from 'react';
import { Link } from 'wouter';

export interface EmptyStateProps {
  icon?: typeof PlugIcon;
  title: string;
  body: string;
  /** The one thing to do next, a link; or `actions`: the screen's own buttons in its place. */
  action?: { href: string; label: string };
  actions?: ReactNode;
  /** A small mark above the title ("Coming Soon"). */
  badge?: ReactNode;
  /** Heading level of the title: h2 under a page's h1. */
  headingLevel?: 2 | 3;
}

/** The one empty state of the data screens: icon, title, what the screen will show, and what to do next. */
export function EmptyState({ icon: Icon = PlugIcon, title, body, action, actions, badge, headingLevel = 2 }: EmptyStateProps) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <section
      className="bg-base-100 rounded-box border-base-content/15 relative overflow-hidden border border-dashed px-5 py-12 text-center sm:px-10 sm:py-16"
      data-testid="empty-state"
    >
      <div aria-hidden="true" className="bg-primary/5 pointer-events-none absolute -top-24 left-1/2 size-64 -translate-x-1/2 rounded-full blur-3xl" />
      <div className="relative">
        <div className="bg-primary/10 text-primary ring-primary/15 mx-auto grid size-16 place-items-center rounded-2xl text-3xl ring-1">
          <Icon />
        </div>
        {badge && <div className="mt-5">{badge}</div>}
        <Heading className="mt-5 text-lg font-semibold text-balance sm:text-xl">{title}</Heading>
        <p className="text-base-content/75 mx-auto mt-2 max-w-xl text-sm leading-relaxed text-pretty sm:text-base">{body}</p>
        {action && (
          <Link href={action.href} className="btn btn-primary mt-7 gap-2">
            {action.label}
            <ArrowRightIcon />
          </Link>
        )}
        {actions}
      </div>
    </section>
  );
}

/** The header row of a page inside the layout: h1 and a short description. */
export function PageHeader({ title, description, children }: { title: ReactNode; description?: ReactNode; children?: ReactNode }) {
  return (
    <div className="flex flex-wrap items-end justify-between gap-3">
      <div className="min-w-0">
        <h1 className="text-2xl font-bold tracking-tight wrap-break-word sm:text-3xl">{title}</h1>
        {description && <p className="text-base-content/75 mt-1">{description}</p>}
      </div>
      {children}
    </div>
  );
}
