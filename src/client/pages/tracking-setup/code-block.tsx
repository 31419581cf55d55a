import { CheckIcon, CopyIcon } from 'lucide-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TFunction } from 'i18next';
import { toast } from '../../components/toast.tsx';

/** Copies text to the clipboard and says so in a toast (or that it failed, with what to do instead). */
export async function copyText(text: string, what: string, t: TFunction<'tracking-setup'>): Promise<boolean> {
  try {
    await navigator.clipboard.writeText(text);
    toast({ title: t('copy.done', { what }), variant: 'success' });
    return true;
  } catch {
    toast({ title: t('copy.failed'), description: t('copy.failedHint'), variant: 'destructive' });
    return false;
  }
}

/** A block of code to paste somewhere, with a copy button; `label` names it for the button and the toast. */
export function CodeBlock({ code, label, testId, wrap = false }: { code: string; label: string; testId?: string; /** Short code (a tag, a key): wrapped instead of scrolled. */ wrap?: boolean }) {
  const { t } = useTranslation('tracking-setup');
  const [copied, setCopied] = useState(false);
  return (
    <div className="border-base-content/10 bg-base-200/60 relative min-w-0 rounded-box border" data-testid={testId}>
      <div className="border-base-content/10 flex items-center justify-between gap-2 border-b px-3 py-1.5">
        <span className="text-base-content/70 truncate text-xs font-medium">{label}</span>
        <button
          type="button"
          className="btn btn-ghost btn-xs gap-1"
          aria-label={t('copy.button', { what: label })}
          onClick={() => {
            void copyText(code, label, t).then((ok) => {
              setCopied(ok);
              if (ok) setTimeout(() => setCopied(false), 2_000);
            });
          }}
        >
          {copied ? <CheckIcon className="size-3.5" aria-hidden="true" /> : <CopyIcon className="size-3.5" aria-hidden="true" />}
          {copied ? t('copy.copied') : t('copy.short')}
        </button>
      </div>
      <pre className={`max-h-96 overflow-auto p-3 text-xs leading-relaxed ${wrap ? 'break-all whitespace-pre-wrap' : ''}`} tabIndex={0}>
        <code>{code}</code>
      </pre>
    </div>
  );
}
