import { KeyRoundIcon, RefreshCwIcon } from 'lucide-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { TrackingSetup } from '../../../shared/tracking.ts';
import { ConfirmDialog } from '../../components/confirm-dialog.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { toast } from '../../components/toast.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { CodeBlock } from './code-block.tsx';
import { headCode } from './install-code.ts';

/** The store key and the tag to install (copy), and the secret key of the server API: its hint, and a new one shown once. */
export function SnippetCard({ setup, viewOnly }: { setup: TrackingSetup; viewOnly: boolean }) {
  const { t } = useTranslation('tracking-setup');
  const utils = trpc.useUtils();
  const [confirming, setConfirming] = useState(false);
  // The new secret key lives only here, until the page is left: the server keeps its hash.
  const [newSecret, setNewSecret] = useState<string | null>(null);
  const rotate = trpc.tracking.rotateSecretKey.useMutation({
    onSuccess: (answer) => {
      setNewSecret(answer.secretKey);
      setConfirming(false);
      utils.tracking.setup.setData(undefined, (current) => current && { ...current, secretKeyHint: answer.hint });
      toast({ title: t('secret.rotated'), description: t('secret.rotatedHint'), variant: 'success' });
    },
    onError: (error) => toast({ title: t('secret.failed'), description: serverMessage(error) ?? undefined, variant: 'destructive' }),
  });

  return (
    <SectionCard titleId="tracking-snippet" title={t('snippet.title')} description={t('snippet.description')} testId="tracking-snippet">
      <dl className="grid gap-1 text-sm sm:grid-cols-[10rem_1fr]">
        <dt className="text-base-content/70">{t('snippet.storeKey')}</dt>
        <dd className="min-w-0 font-mono break-all" data-testid="store-key">
          {setup.storeKey}
        </dd>
      </dl>
      <CodeBlock code={headCode(setup)} label={t('snippet.codeLabel')} testId="snippet-code" wrap />
      <p className="text-base-content/70 text-sm">{t('snippet.where')}</p>

      <div className="divider my-0" />
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h3 className="flex items-center gap-2 font-medium">
            <KeyRoundIcon className="size-4" aria-hidden="true" />
            {t('secret.title')}
          </h3>
          <p className="text-base-content/70 text-sm">{t('secret.description', { url: setup.serverEventsUrl })}</p>
          <p className="mt-1 text-sm" data-testid="secret-hint">
            {setup.secretKeyHint ? t('secret.hint', { hint: setup.secretKeyHint }) : t('secret.none')}
          </p>
        </div>
        <button type="button" className="btn btn-sm gap-2" disabled={viewOnly || rotate.isPending} onClick={() => setConfirming(true)}>
          <RefreshCwIcon className="size-4" aria-hidden="true" />
          {setup.secretKeyHint ? t('secret.rotate') : t('secret.create')}
        </button>
      </div>
      {newSecret && (
        <div role="status" className="alert alert-warning alert-soft grid gap-2" data-testid="new-secret">
          <p className="text-sm font-medium">{t('secret.onceTitle')}</p>
          <CodeBlock code={newSecret} label={t('secret.codeLabel')} wrap />
          <button type="button" className="btn btn-sm btn-ghost justify-self-start" onClick={() => setNewSecret(null)}>
            {t('secret.hide')}
          </button>
        </div>
      )}
      <ConfirmDialog
        open={confirming}
        title={setup.secretKeyHint ? t('secret.confirmTitle') : t('secret.create')}
        body={setup.secretKeyHint ? t('secret.confirmBody') : t('secret.createBody')}
        confirmLabel={setup.secretKeyHint ? t('secret.rotate') : t('secret.create')}
        cancelLabel={t('actions.cancel')}
        tone={setup.secretKeyHint ? 'error' : 'primary'}
        pending={rotate.isPending}
        onConfirm={() => rotate.mutate()}
        onClose={() => setConfirming(false)}
      />
    </SectionCard>
  );
}
