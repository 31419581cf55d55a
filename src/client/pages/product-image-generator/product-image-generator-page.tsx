import { DownloadIcon, ImageIcon, SparklesIcon, Trash2Icon, UploadIcon, XIcon } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import {
  GALLERY_FORMATS, IMAGE_FORMATS, MAX_BATCH_PRODUCTS, MAX_SOURCE_BYTES, UPLOAD_TOO_LARGE_MESSAGE,
  type BatchAnswer, type GalleryFormat, type GalleryImage, type ImageFormat, type MainImageChecks,
} from '../../../shared/product-images.ts';
import { DataError, DataLoading, useViewOnly } from '../../components/data-page.tsx';
import { EmptyState, PageHeader } from '../../components/empty-state.tsx';
import { SectionCard } from '../../components/section-card.tsx';
import { toast } from '../../components/toast.tsx';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';

/** /product-image-generator: marketplace and social images from the store's product photos or an upload; the store's gallery. */
export function ProductImageGeneratorPage() {
  const { t } = useTranslation('product-images');
  const viewOnly = useViewOnly();
  const [results, setResults] = useState<GalleryImage[]>([]);
  return (
    <div className="mx-auto max-w-6xl space-y-6">
      <PageHeader title={t('title')} description={t('description')} />
      {!viewOnly && <GeneratorForm onGenerated={setResults} />}
      {results.length > 0 && <Results images={results} />}
      <BatchProgress viewOnly={viewOnly} />
      <Gallery viewOnly={viewOnly} />
    </div>
  );
}

export function formatBytes(bytes: number, locale: string): string {
  const units = ['B', 'KB', 'MB', 'GB'] as const;
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${new Intl.NumberFormat(locale, { maximumFractionDigits: unit === 0 ? 0 : 1 }).format(value)} ${units[unit]}`;
}

type Source = 'products' | 'upload';

function GeneratorForm({ onGenerated }: { onGenerated: (images: GalleryImage[]) => void }) {
  const { t, i18n } = useTranslation('product-images');
  const locale = (['en', 'es', 'fr', 'de'] as const).find((code) => i18n.language?.startsWith(code)) ?? 'en';
  const ids = { search: useId(), file: useId(), discount: useId(), text: useId(), colour: useId(), error: useId() };
  const [source, setSource] = useState<Source>('products');
  const [search, setSearch] = useState('');
  const [selected, setSelected] = useState<number[]>([]);
  const [file, setFile] = useState<File | null>(null);
  const [formats, setFormats] = useState<ImageFormat[]>(['main']);
  const [discount, setDiscount] = useState('');
  const [showPrice, setShowPrice] = useState(false);
  const [text, setText] = useState('');
  const [colour, setColour] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [uploading, setUploading] = useState(false);
  const utils = trpc.useUtils();
  const settings = trpc.productImages.settings.useQuery();
  const products = trpc.productImages.products.useQuery({ search });
  const brandColour = colour ?? settings.data?.brandColor ?? '#F97316';

  const saveColour = trpc.productImages.setBrandColor.useMutation();
  const generate = trpc.productImages.generate.useMutation();
  const startBatch = trpc.productImages.startBatch.useMutation();

  const options = () => ({
    formats,
    discountPercent: discount ? Math.min(90, Math.max(1, Math.round(Number(discount)))) : null,
    showPrice,
    text,
    locale,
  });
  const finish = async (images: GalleryImage[]) => {
    onGenerated(images);
    await utils.productImages.gallery.invalidate();
    toast({ title: t('form.generated', { count: images.length }), variant: 'success' });
  };
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setError(null);
    if (formats.length === 0) return setError(t('form.noFormat'));
    try {
      if (colour && colour.toUpperCase() !== settings.data?.brandColor) {
        await saveColour.mutateAsync({ brandColor: colour });
        await utils.productImages.settings.invalidate();
      }
      if (source === 'upload') {
        if (!file) return setError(t('form.noFile'));
        if (file.size > MAX_SOURCE_BYTES) return setError(t('form.tooLarge'));
        setUploading(true);
        const response = await fetch(`/api/product-images/upload?name=${encodeURIComponent(file.name)}&options=${encodeURIComponent(JSON.stringify(options()))}`, {
          method: 'POST',
          credentials: 'same-origin',
          headers: { 'content-type': 'application/octet-stream', accept: 'application/json' },
          body: file,
        }).finally(() => setUploading(false));
        const body = (await response.json().catch(() => ({}))) as { images?: GalleryImage[]; message?: string };
        if (!response.ok || !body.images) return setError(body.message === UPLOAD_TOO_LARGE_MESSAGE ? t('form.tooLarge') : (body.message ?? t('form.failed')));
        return await finish(body.images);
      }
      if (selected.length === 0) return setError(t('form.noProduct'));
      if (selected.length === 1) return await finish(await generate.mutateAsync({ productId: selected[0]!, ...options() }));
      await startBatch.mutateAsync({ productIds: selected, ...options() });
      await utils.productImages.latestBatch.invalidate();
      onGenerated([]);
    } catch (failure) {
      setError(serverMessage(failure) ?? t('form.failed'));
    }
  };
  const busy = generate.isPending || startBatch.isPending || uploading || saveColour.isPending;
  const toggle = (id: number) => setSelected((current) => (current.includes(id) ? current.filter((item) => item !== id) : current.length >= MAX_BATCH_PRODUCTS ? current : [...current, id]));

  return (
    <form className="card bg-base-100 border-base-content/10 border shadow-xs" onSubmit={(event) => void submit(event)} noValidate data-testid="image-generator-form">
      <div className="card-body gap-4 p-4 sm:p-6">
        <div role="tablist" className="tabs tabs-box w-fit">
          {(['products', 'upload'] as const).map((kind) => (
            <button key={kind} type="button" role="tab" aria-selected={source === kind} className={`tab ${source === kind ? 'tab-active' : ''}`} onClick={() => setSource(kind)}>
              {t(`form.source.${kind}`)}
            </button>
          ))}
        </div>

        {source === 'products' ? (
          <fieldset className="flex flex-col gap-2">
            <label htmlFor={ids.search} className="font-semibold">
              {t('form.products')}
            </label>
            <input id={ids.search} type="search" className="input w-full" placeholder={t('form.searchPlaceholder')} value={search} onChange={(event) => setSearch(event.target.value)} />
            {products.isPending ? (
              <span className="loading loading-spinner loading-sm" aria-label={t('loading')} />
            ) : products.isError ? (
              <DataError error={products.error} onRetry={() => void products.refetch()} />
            ) : products.data.length === 0 ? (
              <p className="text-base-content/70 text-sm">{search ? t('form.noMatch') : t('form.noProducts')}</p>
            ) : (
              <ul className="border-base-content/10 max-h-64 overflow-y-auto rounded-box border" aria-label={t('form.products')} data-testid="source-products">
                {products.data.map((product) => (
                  <li key={product.id} className="border-base-content/5 border-b last:border-b-0">
                    <label className="hover:bg-base-200 flex cursor-pointer items-center gap-3 px-3 py-2">
                      <input type="checkbox" className="checkbox checkbox-sm" checked={selected.includes(product.id)} onChange={() => toggle(product.id)} />
                      <span className="min-w-0 flex-1 truncate">{product.title}</span>
                      {product.sku && <span className="text-base-content/60 hidden text-xs sm:inline">{product.sku}</span>}
                    </label>
                  </li>
                ))}
              </ul>
            )}
            <p className="text-base-content/70 text-sm" aria-live="polite">
              {t('form.selected', { count: selected.length })}
              {selected.length > 1 ? ` · ${t('form.batchHint')}` : ''}
            </p>
          </fieldset>
        ) : (
          <div className="flex flex-col gap-2">
            <label htmlFor={ids.file} className="font-semibold">
              {t('form.file')}
            </label>
            <input id={ids.file} type="file" accept="image/jpeg,image/png,image/webp,image/avif" className="file-input w-full" onChange={(event) => setFile(event.target.files?.[0] ?? null)} />
            <p className="text-base-content/70 text-sm">{t('form.fileHint')}</p>
          </div>
        )}

        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 font-semibold">{t('form.formats')}</legend>
          <div className="grid gap-2 sm:grid-cols-2">
            {IMAGE_FORMATS.map((format) => (
              <label key={format} className="flex cursor-pointer items-center gap-2">
                <input
                  type="checkbox"
                  className="checkbox checkbox-sm"
                  checked={formats.includes(format)}
                  onChange={() => setFormats((current) => (current.includes(format) ? current.filter((item) => item !== format) : [...current, format]))}
                />
                <span>{t(`format.${format}`)}</span>
              </label>
            ))}
          </div>
        </fieldset>

        <div className="grid gap-3 sm:grid-cols-3">
          <div className="flex flex-col gap-1">
            <label htmlFor={ids.discount} className="text-sm">
              {t('form.discount')}
            </label>
            <input id={ids.discount} type="number" min={1} max={90} inputMode="numeric" className="input w-full" value={discount} onChange={(event) => setDiscount(event.target.value)} placeholder="20" />
          </div>
          <div className="flex flex-col gap-1">
            <label htmlFor={ids.text} className="text-sm">
              {t('form.text')}
            </label>
            <input id={ids.text} type="text" maxLength={80} className="input w-full" value={text} onChange={(event) => setText(event.target.value)} placeholder={t('form.textPlaceholder')} />
          </div>
          <div className="flex flex-col gap-1">
            <label htmlFor={ids.colour} className="text-sm">
              {t('form.brandColour')}
            </label>
            <div className="flex items-center gap-2">
              <input id={ids.colour} type="color" className="h-10 w-14 cursor-pointer rounded border-0 bg-transparent" value={brandColour} onChange={(event) => setColour(event.target.value)} />
              <span className="font-mono text-sm">{brandColour.toUpperCase()}</span>
            </div>
          </div>
        </div>
        <label className="flex cursor-pointer items-center gap-2">
          <input type="checkbox" className="checkbox checkbox-sm" checked={showPrice} onChange={(event) => setShowPrice(event.target.checked)} />
          <span>{t('form.showPrice')}</span>
        </label>
        <p className="text-base-content/70 text-sm">{t('form.socialHint')}</p>

        {settings.data && !settings.data.imageModel && (
          <div role="note" className="alert alert-soft" data-testid="image-model-note">
            <SparklesIcon className="size-4" aria-hidden="true" />
            <span>{t('form.noImageModel')}</span>
          </div>
        )}

        {error && (
          <p id={ids.error} className="text-error text-sm" role="alert">
            {error}
          </p>
        )}
        <div>
          <button type="submit" className="btn btn-primary" disabled={busy} aria-busy={busy}>
            {busy ? <span className="loading loading-spinner loading-sm" aria-hidden="true" /> : source === 'upload' ? <UploadIcon className="size-4" aria-hidden="true" /> : <ImageIcon className="size-4" aria-hidden="true" />}
            {busy ? t('form.generating') : selected.length > 1 && source === 'products' ? t('form.generateBatch', { count: selected.length }) : t('form.generate')}
          </button>
        </div>
      </div>
    </form>
  );
}

function CheckList({ checks }: { checks: MainImageChecks }) {
  const { t } = useTranslation('product-images');
  return (
    <ul className="flex flex-col gap-1 text-sm" aria-label={t('checks.title')}>
      {(['whiteBorder', 'productFill', 'minSize'] as const).map((key) => (
        <li key={key} className="flex items-center gap-2" data-check={key} data-state={checks[key].pass ? 'pass' : 'fail'}>
          <span className={`badge badge-sm ${checks[key].pass ? 'badge-success' : 'badge-error'}`}>{checks[key].pass ? t('checks.pass') : t('checks.fail')}</span>
          <span>{t(`checks.${key}`, { value: checks[key].value })}</span>
        </li>
      ))}
    </ul>
  );
}

/** The image model's lifestyle background for one image (shown only when a model is set up). */
function AiVariantForm({ image }: { image: GalleryImage }) {
  const { t } = useTranslation('product-images');
  const promptId = useId();
  const [prompt, setPrompt] = useState('');
  const utils = trpc.useUtils();
  const variant = trpc.productImages.aiVariant.useMutation({
    onSuccess: async () => {
      setPrompt('');
      await utils.productImages.gallery.invalidate();
      toast({ title: t('ai.done'), variant: 'success' });
    },
    onError: (failure) => toast({ title: t('ai.failed'), description: serverMessage(failure) ?? undefined, variant: 'destructive' }),
  });
  return (
    <form
      className="flex flex-col gap-1"
      onSubmit={(event) => {
        event.preventDefault();
        if (prompt.trim().length >= 3) variant.mutate({ imageId: image.id, prompt });
      }}
    >
      <label htmlFor={promptId} className="text-xs">
        {t('ai.label')}
      </label>
      <div className="join w-full">
        <input id={promptId} className="input input-sm join-item min-w-0 flex-1" value={prompt} maxLength={500} placeholder={t('ai.placeholder')} onChange={(event) => setPrompt(event.target.value)} />
        <button type="submit" className="btn btn-sm join-item" disabled={variant.isPending || prompt.trim().length < 3} aria-label={t('ai.submit')}>
          {variant.isPending ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <SparklesIcon className="size-4" aria-hidden="true" />}
        </button>
      </div>
    </form>
  );
}

function ImageCard({ image, selectable, selected, onToggle, onDelete, aiVariants }: { image: GalleryImage; selectable?: boolean; selected?: boolean; onToggle?: () => void; onDelete?: () => void; aiVariants?: boolean }) {
  const { t, i18n } = useTranslation('product-images');
  return (
    <li className="card bg-base-100 border-base-content/10 border" data-testid="product-image" data-format={image.format}>
      <figure className="bg-base-200 relative aspect-square">
        <img src={`/api/product-images/${image.id}.webp`} alt={t('imageAlt', { title: image.title, format: t(`format.${image.format}`) })} className="h-full w-full object-contain" loading="lazy" />
        {selectable && (
          <label className="bg-base-100/90 absolute top-2 left-2 rounded p-1">
            <input type="checkbox" className="checkbox checkbox-sm" checked={selected} onChange={onToggle} aria-label={t('gallery.select', { title: image.title })} />
          </label>
        )}
      </figure>
      <div className="card-body justify-start gap-2 p-3">
        {/* daisyUI's card-body lets its paragraphs grow; these stay their own height. */}
        <p className="grow-0 truncate font-medium" title={image.title}>
          {image.title}
        </p>
        <p className="text-base-content/70 grow-0 text-xs">
          {t(`format.${image.format}`)}
          {image.format === 'main' ? ` · ${image.width}×${image.height}` : ''}
        </p>
        {image.checks && <CheckList checks={image.checks} />}
        {aiVariants && image.format === 'main' && <AiVariantForm image={image} />}
        <div className="mt-auto flex flex-wrap items-center gap-1">
          <a className="btn btn-xs btn-outline" href={`/api/product-images/${image.id}.webp`} download>
            <DownloadIcon className="size-3" aria-hidden="true" />
            WebP {formatBytes(image.webpBytes, i18n.language)}
          </a>
          <a className="btn btn-xs btn-outline" href={`/api/product-images/${image.id}.jpg`} download>
            <DownloadIcon className="size-3" aria-hidden="true" />
            JPEG {formatBytes(image.jpegBytes, i18n.language)}
          </a>
          {onDelete && (
            <button type="button" className="btn btn-xs btn-ghost text-error" onClick={onDelete} aria-label={t('gallery.deleteOne', { title: image.title })}>
              <Trash2Icon className="size-3" aria-hidden="true" />
            </button>
          )}
        </div>
      </div>
    </li>
  );
}

function Results({ images }: { images: GalleryImage[] }) {
  const { t } = useTranslation('product-images');
  const titleId = useId();
  return (
    <SectionCard titleId={titleId} title={t('results.title')} description={t('results.description')} testId="generated-results">
      <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
        {images.map((image) => (
          <ImageCard key={image.id} image={image} />
        ))}
      </ul>
    </SectionCard>
  );
}

const isRunning = (batch: BatchAnswer | null | undefined) => batch?.status === 'queued' || batch?.status === 'running';

function BatchProgress({ viewOnly }: { viewOnly: boolean }) {
  const { t } = useTranslation('product-images');
  const titleId = useId();
  const utils = trpc.useUtils();
  const latest = trpc.productImages.latestBatch.useQuery(undefined, { refetchInterval: (query) => (isRunning(query.state.data) ? 1000 : false) });
  const cancel = trpc.productImages.cancelBatch.useMutation({ onSuccess: () => utils.productImages.latestBatch.invalidate() });
  const batch = latest.data;
  const [wasRunning, setWasRunning] = useState(false);
  if (isRunning(batch) && !wasRunning) setWasRunning(true);
  if (batch && !isRunning(batch) && wasRunning) {
    setWasRunning(false);
    void utils.productImages.gallery.invalidate();
  }
  if (!batch) return null;
  return (
    <SectionCard
      titleId={titleId}
      title={t('batch.title')}
      testId="batch-progress"
      data-state={batch.status}
      actions={
        isRunning(batch) && !viewOnly ? (
          <button type="button" className="btn btn-sm btn-outline" onClick={() => cancel.mutate({ id: batch.id })} disabled={cancel.isPending}>
            <XIcon className="size-4" aria-hidden="true" />
            {t('batch.cancel')}
          </button>
        ) : undefined
      }
    >
      <p aria-live="polite">{t(`batch.status.${batch.status}`, { done: batch.done, total: batch.total })}</p>
      <progress className="progress progress-primary w-full" value={batch.done} max={batch.total} aria-label={t('batch.title')} />
      {batch.failures.length > 0 && (
        <div>
          <p className="font-medium">{t('batch.failures', { count: batch.failures.length })}</p>
          <ul className="list-disc pl-5 text-sm">
            {batch.failures.map((failure) => (
              <li key={failure.productId}>
                <span className="font-medium">{failure.title}</span>: {failure.reason}
              </li>
            ))}
          </ul>
        </div>
      )}
    </SectionCard>
  );
}

function Gallery({ viewOnly }: { viewOnly: boolean }) {
  const { t, i18n } = useTranslation('product-images');
  const titleId = useId();
  const filterId = useId();
  const searchId = useId();
  const utils = trpc.useUtils();
  const [format, setFormat] = useState<GalleryFormat | null>(null);
  const [search, setSearch] = useState('');
  const [selected, setSelected] = useState<number[]>([]);
  const gallery = trpc.productImages.gallery.useQuery({ format, search });
  const settings = trpc.productImages.settings.useQuery();
  const remove = trpc.productImages.remove.useMutation({
    onSuccess: async ({ deleted }) => {
      setSelected([]);
      await utils.productImages.gallery.invalidate();
      toast({ title: t('gallery.deleted', { count: deleted }), variant: 'success' });
    },
    onError: (failure) => toast({ title: t('gallery.deleteFailed'), description: serverMessage(failure) ?? undefined, variant: 'destructive' }),
  });
  const images = gallery.data?.images ?? [];
  const visibleSelected = selected.filter((id) => images.some((image) => image.id === id));
  const usage = gallery.data?.usage;
  return (
    <SectionCard
      titleId={titleId}
      title={t('gallery.title')}
      description={settings.data && !settings.data.writeBack ? t('gallery.downloadOnly') : undefined}
      testId="image-gallery"
    >
      {usage && (
        <div className="flex flex-col gap-1" data-testid="storage-usage">
          <p className="text-sm">{t('gallery.usage', { used: formatBytes(usage.usedBytes, i18n.language), quota: formatBytes(usage.quotaBytes, i18n.language) })}</p>
          <progress className={`progress w-full ${usage.usedBytes / Math.max(1, usage.quotaBytes) > 0.9 ? 'progress-error' : 'progress-primary'}`} value={usage.usedBytes} max={Math.max(1, usage.quotaBytes)} aria-label={t('gallery.usageLabel')} />
        </div>
      )}
      <div className="flex flex-col gap-2 sm:flex-row sm:items-end">
        <div className="flex flex-col gap-1">
          <label htmlFor={filterId} className="text-sm">
            {t('gallery.format')}
          </label>
          <select id={filterId} className="select w-full sm:w-48" value={format ?? ''} onChange={(event) => setFormat((event.target.value || null) as GalleryFormat | null)}>
            <option value="">{t('gallery.allFormats')}</option>
            {GALLERY_FORMATS.map((item) => (
              <option key={item} value={item}>
                {t(`format.${item}`)}
              </option>
            ))}
          </select>
        </div>
        <div className="flex flex-1 flex-col gap-1">
          <label htmlFor={searchId} className="text-sm">
            {t('gallery.search')}
          </label>
          <input id={searchId} type="search" className="input w-full" value={search} onChange={(event) => setSearch(event.target.value)} />
        </div>
      </div>
      {images.length > 0 && (
        <div className="flex flex-wrap items-center gap-2">
          <button type="button" className="btn btn-sm btn-ghost" onClick={() => setSelected(visibleSelected.length === images.length ? [] : images.map((image) => image.id))}>
            {visibleSelected.length === images.length ? t('gallery.selectNone') : t('gallery.selectAll')}
          </button>
          <a
            className={`btn btn-sm btn-primary ${visibleSelected.length === 0 ? 'btn-disabled' : ''}`}
            aria-disabled={visibleSelected.length === 0}
            href={visibleSelected.length ? `/api/product-images/zip?ids=${visibleSelected.join(',')}&ext=jpg` : undefined}
            download
          >
            <DownloadIcon className="size-4" aria-hidden="true" />
            {t('gallery.downloadZip', { count: visibleSelected.length })}
          </a>
          {!viewOnly && (
            <button type="button" className="btn btn-sm btn-outline btn-error" disabled={visibleSelected.length === 0 || remove.isPending} onClick={() => remove.mutate({ ids: visibleSelected })}>
              <Trash2Icon className="size-4" aria-hidden="true" />
              {t('gallery.deleteSelected', { count: visibleSelected.length })}
            </button>
          )}
        </div>
      )}
      {gallery.isPending ? (
        <DataLoading label={t('loading')} cards={4} gridClassName="grid gap-3 sm:grid-cols-2 lg:grid-cols-4" chartClassName="hidden" />
      ) : gallery.isError ? (
        <DataError error={gallery.error} onRetry={() => void gallery.refetch()} />
      ) : images.length === 0 ? (
        <EmptyState icon={ImageIcon} title={format || search ? t('gallery.noMatchTitle') : t('gallery.emptyTitle')} body={format || search ? t('gallery.noMatchBody') : t('gallery.emptyBody')} headingLevel={3} />
      ) : (
        <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4" data-testid="gallery-images">
          {images.map((image) => (
            <ImageCard
              key={image.id}
              image={image}
              selectable
              selected={selected.includes(image.id)}
              onToggle={() => setSelected((current) => (current.includes(image.id) ? current.filter((id) => id !== image.id) : [...current, image.id]))}
              {...(viewOnly ? {} : { onDelete: () => remove.mutate({ ids: [image.id] }), aiVariants: settings.data?.imageModel ?? false })}
            />
          ))}
        </ul>
      )}
    </SectionCard>
  );
}
