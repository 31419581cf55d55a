import type { inferRouterOutputs } from '@trpc/server';
import { SparklesIcon, Undo2Icon } from 'lucide-react';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { FEED_ATTRIBUTES, type FeedAttribute, type FeedSuggestion } from '../../../shared/shopping-optimizer.ts';
import { DetailDrawer, DrawerSection } from '../../components/detail-drawer.tsx';
import { toast } from '../../components/toast.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import type { AppRouter } from '../../../server/trpc/router.ts';
import { PageCheckEvidence } from './page-check-panel.tsx';

export function scoreTone(score: number): string {
  return score >= 80 ? 'badge-success' : score >= 50 ? 'badge-warning' : 'badge-error';
}

/** One product's issues, suggestions (accept, edit, reject) and feed values, beside the table. */
export function ProductFeedDrawer({ productId, onClose }: { productId: number | null; onClose: () => void }) {
  const { t } = useTranslation('shopping-optimizer');
  const query = trpc.shoppingOptimizer.suggestions.useQuery({ productId: productId ?? 0 }, { enabled: productId !== null, staleTime: 60_000 });
  const product = query.data?.product;
  return (
    <DetailDrawer
      open={productId !== null}
      onClose={onClose}
      titleId="product-feed-title"
      title={product?.title ?? t('drawer.loading')}
      subtitle={product && <p className="text-base-content/60 font-mono text-xs">{product.offerId}</p>}
      closeLabel={t('drawer.close')}
      loadingLabel={t('drawer.loading')}
      query={query}
      testId="product-drawer"
    >
      {query.data && <DrawerBody key={productId} data={query.data} />}
    </DetailDrawer>
  );
}

type SuggestionsAnswer = inferRouterOutputs<AppRouter>['shoppingOptimizer']['suggestions'];

function DrawerBody({ data }: { data: SuggestionsAnswer }) {
  const { t } = useTranslation('shopping-optimizer');
  const utils = trpc.useUtils();
  const { product } = data;
  const [rejected, setRejected] = useState<Set<string>>(new Set());
  const refresh = async () => {
    await Promise.all([utils.shoppingOptimizer.audit.invalidate(), utils.shoppingOptimizer.suggestions.invalidate({ productId: product.productId })]);
  };
  const setOverride = trpc.shoppingOptimizer.setOverride.useMutation({
    onSuccess: async () => {
      await refresh();
      toast({ title: t('drawer.saved'), variant: 'success' });
    },
    onError: (error) => toast({ title: t('drawer.saveFailed'), description: serverMessage(error) ?? undefined, variant: 'destructive' }),
  });
  const removeOverride = trpc.shoppingOptimizer.removeOverride.useMutation({
    onSuccess: refresh,
    onError: (error) => toast({ title: t('drawer.saveFailed'), description: serverMessage(error) ?? undefined, variant: 'destructive' }),
  });
  const suggestions = data.suggestions.filter((suggestion) => !rejected.has(`${suggestion.attribute}:${suggestion.value}`));
  const overrides = Object.entries(product.overrides) as [FeedAttribute, string][];

  return (
    <>
      <div className="flex items-center gap-3">
        <span className={`badge badge-lg tabular-nums ${scoreTone(product.score)}`} data-testid="drawer-score">
          {product.score} / 100
        </span>
        <span className="text-base-content/70 text-sm">{t('table.issueCount', { count: product.issues.length })}</span>
      </div>

      <DrawerSection title={t('drawer.issues')} testId="drawer-issues">
        {product.issues.length === 0 ? (
          <p className="text-success text-sm">{t('drawer.noIssues')}</p>
        ) : (
          <ul className="space-y-2">
            {product.issues.map((issue) => (
              <li key={issue.type} className="text-sm" data-testid={`issue-${issue.type}`}>
                <span className={`badge badge-xs me-2 ${issue.severity === 'error' ? 'badge-error' : 'badge-warning'}`}>{t(`severity.${issue.severity}`)}</span>
                <span className="font-medium">{t(`issues.${issue.type}.label`)}</span>
                <span className="text-base-content/70 block">{t(`issues.${issue.type}.fix`)}</span>
                <PageCheckEvidence issue={issue} />
              </li>
            ))}
          </ul>
        )}
      </DrawerSection>

      <DrawerSection title={t('drawer.suggestions')} testId="drawer-suggestions">
        {data.llmError && (
          <p role="alert" className="alert alert-warning alert-soft mb-2 text-sm">
            {t('drawer.llmFailed')}
          </p>
        )}
        {suggestions.length === 0 ? (
          <p className="text-base-content/70 text-sm">{t('drawer.noSuggestions')}</p>
        ) : (
          <ul className="space-y-4">
            {suggestions.map((suggestion) => (
              <SuggestionItem
                key={`${suggestion.attribute}:${suggestion.value}`}
                suggestion={suggestion}
                pending={setOverride.isPending}
                onAccept={(value) => setOverride.mutate({ productId: product.productId, attribute: suggestion.attribute, value, source: value === suggestion.value ? suggestion.source : 'user' })}
                onReject={() => setRejected((previous) => new Set(previous).add(`${suggestion.attribute}:${suggestion.value}`))}
              />
            ))}
          </ul>
        )}
      </DrawerSection>

      <DrawerSection title={t('drawer.feedValues')} testId="drawer-overrides">
        {overrides.length === 0 ? (
          <p className="text-base-content/70 text-sm">{t('drawer.noOverrides')}</p>
        ) : (
          <dl className="space-y-2 text-sm">
            {overrides.map(([attribute, value]) => (
              <div key={attribute} className="flex items-start gap-2">
                <div className="min-w-0 flex-1">
                  <dt className="text-base-content/70 text-xs font-semibold">{t(`attributes.${attribute}`)}</dt>
                  <dd className="break-words">{value}</dd>
                </div>
                <button type="button" className="btn btn-ghost btn-xs gap-1" onClick={() => removeOverride.mutate({ productId: product.productId, attribute })} disabled={removeOverride.isPending}>
                  <Undo2Icon className="size-3.5" aria-hidden="true" />
                  {t('drawer.revert')}
                </button>
              </div>
            ))}
          </dl>
        )}
        <EditAttribute pending={setOverride.isPending} onSave={(attribute, value) => setOverride.mutate({ productId: product.productId, attribute, value, source: 'user' })} />
        <p className="text-base-content/60 mt-3 text-xs">{t('drawer.notWrittenBack')}</p>
      </DrawerSection>
    </>
  );
}

function SuggestionItem({ suggestion, pending, onAccept, onReject }: { suggestion: FeedSuggestion; pending: boolean; onAccept: (value: string) => void; onReject: () => void }) {
  const { t } = useTranslation('shopping-optimizer');
  const [value, setValue] = useState(suggestion.value);
  const long = suggestion.attribute === 'description';
  const id = `suggestion-${suggestion.attribute}`;
  return (
    <li className="border-base-content/10 rounded-box border p-3" data-testid={`suggestion-${suggestion.attribute}`}>
      <label htmlFor={id} className="flex items-center gap-2 text-sm font-semibold">
        {t(`attributes.${suggestion.attribute}`)}
        {suggestion.source === 'llm' && (
          <span className="badge badge-xs badge-secondary gap-1">
            <SparklesIcon className="size-3" aria-hidden="true" />
            {t('drawer.byAi')}
          </span>
        )}
      </label>
      {suggestion.attribute === 'mpn' && <p className="text-base-content/70 text-xs">{t('drawer.mpnHint')}</p>}
      {long ? (
        <textarea id={id} className="textarea textarea-sm mt-2 w-full" rows={3} value={value} onChange={(event) => setValue(event.target.value)} />
      ) : (
        <input id={id} className="input input-sm mt-2 w-full" value={value} onChange={(event) => setValue(event.target.value)} />
      )}
      <div className="mt-2 flex gap-2">
        <button type="button" className="btn btn-primary btn-xs" disabled={pending || !value.trim()} onClick={() => onAccept(value.trim())} data-testid="accept-suggestion">
          {t('drawer.accept')}
        </button>
        <button type="button" className="btn btn-ghost btn-xs" onClick={onReject} data-testid="reject-suggestion">
          {t('drawer.reject')}
        </button>
      </div>
    </li>
  );
}

function EditAttribute({ pending, onSave }: { pending: boolean; onSave: (attribute: FeedAttribute, value: string) => void }) {
  const { t } = useTranslation('shopping-optimizer');
  const [attribute, setAttribute] = useState<FeedAttribute>('gtin');
  const [value, setValue] = useState('');
  return (
    <form
      className="mt-4 flex flex-col gap-2 sm:flex-row"
      onSubmit={(event) => {
        event.preventDefault();
        if (value.trim()) onSave(attribute, value.trim());
      }}
      data-testid="edit-attribute"
    >
      <select className="select select-sm sm:w-40" value={attribute} onChange={(event) => setAttribute(event.target.value as FeedAttribute)} aria-label={t('drawer.attribute')}>
        {FEED_ATTRIBUTES.map((name) => (
          <option key={name} value={name}>
            {t(`attributes.${name}`)}
          </option>
        ))}
      </select>
      <input className="input input-sm min-w-0 flex-1" value={value} onChange={(event) => setValue(event.target.value)} aria-label={t('drawer.value')} maxLength={5000} />
      <button type="submit" className="btn btn-sm" disabled={pending || !value.trim()}>
        {t('drawer.set')}
      </button>
    </form>
  );
}
