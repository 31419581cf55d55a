import type { ReactNode } from 'react';

/** One section of the settings screen: icon, title, a line of explanation, then its form. */
export function SettingsCard({
  id,
  icon,
  title,
  description,
  children,
}: {
  id: string;
  icon: ReactNode;
  title: string;
  description: string;
  children: ReactNode;
}) {
  return (
    <section id={id} className="card bg-base-100 border-base-content/10 scroll-mt-24 border shadow-sm" aria-labelledby={`${id}-heading`}>
      <div className="card-body gap-5">
        <div className="flex items-start gap-3">
          <span className="bg-primary/10 text-primary grid size-10 shrink-0 place-items-center rounded-xl text-lg" aria-hidden="true">
            {icon}
          </span>
          <div className="min-w-0">
            <h2 id={`${id}-heading`} className="text-lg font-semibold">
              {title}
            </h2>
            <p className="text-base-content/70 text-sm">{description}</p>
          </div>
        </div>
        {children}
      </div>
    </section>
  );
}
