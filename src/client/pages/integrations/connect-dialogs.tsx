import { FileUpIcon, PlugZapIcon, UnplugIcon } from 'lucide-react';
import { useId, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { MAX_EMAIL_CSV_CHARACTERS, type Integration } from '../../../shared/integrations.ts';
import { PasswordField, TextField } from '../../components/form-fields.tsx';
import { FormAlert, useFormErrors } from '../../components/form-state.tsx';
import { PlatformLogo } from '../../components/platform-logo.tsx';
import { apiRequest } from '../../lib/api.ts';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';
import { shopDomainFrom, TRPC_CSV_LIMIT_CHARACTERS } from './integration-view.ts';
import { Modal } from '../../components/modal.tsx';
import { useIntegrationCache } from './use-integration-cache.ts';

// The forms behind a card's Connect button (Shopify's store address, API credentials, a CSV file) and
// the confirmation of Disconnect. Each stays open with what was typed when the server says no.

interface DialogProps {
  integration: Integration | null;
  title: string;
  onClose: () => void;
}

/** The fields whose values are secrets (typed hidden, with a show button). */
const SECRET_FIELDS = new Set(['consumerKey', 'consumerSecret', 'apiKey']);

function DialogHeading({ integration, title, titleId, subtitle }: { integration: Integration; title: string; titleId: string; subtitle: string }) {
  return (
    <div className="mb-5 flex items-start gap-4">
      <PlatformLogo platform={integration.platform} />
      <div className="min-w-0">
        <h2 id={titleId} className="text-lg font-semibold">
          {title}
        </h2>
        <p className="text-base-content/75 mt-1 text-sm">{subtitle}</p>
      </div>
    </div>
  );
}

/** Cancel and the form's submit button (a spinner and the pending text while the request runs). */
function DialogActions({ pending, label, pendingLabel, icon, onCancel }: { pending: boolean; label: string; pendingLabel: string; icon?: ReactNode; onCancel: () => void }) {
  const { t } = useTranslation('integrations');
  return (
    <div className="modal-action mt-2 flex-col-reverse gap-2 sm:flex-row">
      <button type="button" className="btn btn-ghost" onClick={onCancel} disabled={pending}>
        {t('actions.cancel')}
      </button>
      <button type="submit" className="btn btn-primary gap-2" disabled={pending} aria-busy={pending}>
        {pending ? <span className="loading loading-spinner loading-sm" aria-hidden="true" /> : icon}
        {pending ? pendingLabel : label}
      </button>
    </div>
  );
}

/** Shopify: the store's address, then off to its consent page. */
export function ShopifyConnectDialog({ integration, title, onClose }: DialogProps) {
  const { t } = useTranslation('integrations');
  const titleId = useId();
  const [shop, setShop] = useState('');
  const form = useFormErrors(t('errors.connection'));
  const start = trpc.integrations.startOAuth.useMutation({
    onSuccess: ({ authorizeUrl }) => window.location.assign(authorizeUrl),
    onError: (error) => form.showServerError(error),
  });
  const busy = start.isPending || start.isSuccess;

  function submit(event: FormEvent) {
    event.preventDefault();
    const domain = shopDomainFrom(shop);
    if (!form.acceptLocalCheck(domain ? {} : { shop: t('shopify.invalid') })) return;
    start.mutate({ platform: 'shopify', shop: domain! });
  }

  return (
    <Modal open={integration !== null} titleId={titleId} busy={busy} onClose={onClose} testId="shopify-dialog">
      {integration && (
        <form onSubmit={submit} noValidate className="space-y-4">
          <DialogHeading integration={integration} title={t('connect.title', { platform: title })} titleId={titleId} subtitle={t('shopify.intro')} />
          <FormAlert message={form.formError} />
          <TextField
            id="shopify-shop"
            label={t('shopify.label')}
            value={shop}
            onValueChange={(value) => {
              setShop(value);
              form.clear('shop');
            }}
            error={form.fieldErrors.shop}
            hint={t('shopify.hint')}
            placeholder="your-store.myshopify.com"
            autoComplete="off"
            autoCapitalize="none"
            spellCheck={false}
            inputMode="url"
            autoFocus
          />
          <DialogActions pending={busy} label={t('shopify.submit')} pendingLabel={t('shopify.redirecting')} onCancel={onClose} />
        </form>
      )}
    </Modal>
  );
}

/** WooCommerce, Klaviyo, Omnisend, Mailchimp: the platform's API credentials, checked by the server with the platform. */
export function CredentialsDialog({ integration, title, onClose }: DialogProps) {
  const { t } = useTranslation('integrations');
  const titleId = useId();
  const cache = useIntegrationCache();
  const [values, setValues] = useState<Record<string, string>>({});
  const form = useFormErrors(t('errors.connection'));
  const connect = trpc.integrations.connect.useMutation({
    onSuccess: (updated) => {
      cache.replace(updated);
      cache.toastConnected(title);
      setValues({});
      onClose();
    },
    onError: (error) => form.showServerError(error),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!integration) return;
    const missing: Record<string, string> = {};
    for (const field of integration.credentialFields) if (!values[field]?.trim()) missing[field] = t('credentials.required');
    if (!form.acceptLocalCheck(missing)) return;
    connect.mutate({ platform: integration.platform, credentials: Object.fromEntries(integration.credentialFields.map((field) => [field, values[field]!.trim()])) });
  }

  return (
    <Modal open={integration !== null} titleId={titleId} busy={connect.isPending} onClose={onClose} testId="credentials-dialog">
      {integration && (
        <form onSubmit={submit} noValidate className="space-y-4">
          <DialogHeading integration={integration} title={t('connect.title', { platform: title })} titleId={titleId} subtitle={t(`credentials.intro.${integration.platform}`, { defaultValue: t('credentials.introGeneric') })} />
          <FormAlert message={form.formError} />
          {integration.credentialFields.map((field, index) => {
            const Field = SECRET_FIELDS.has(field) ? PasswordField : TextField;
            const key = `credentials.fields.${integration.platform}.${field}`;
            return (
              <Field
                key={field}
                id={`credential-${field}`}
                label={t(`${key}.label`, { defaultValue: field })}
                hint={t(`${key}.hint`, { defaultValue: '' }) || undefined}
                value={values[field] ?? ''}
                onValueChange={(value) => {
                  setValues((current) => ({ ...current, [field]: value }));
                  form.clear(field);
                }}
                error={form.fieldErrors[field]}
                autoComplete="off"
                autoCapitalize="none"
                spellCheck={false}
                autoFocus={index === 0}
                {...(field === 'storeUrl' ? { type: 'url', placeholder: 'https://shop.example.com', inputMode: 'url' as const } : {})}
              />
            );
          })}
          <DialogActions pending={connect.isPending} label={t('credentials.submit')} pendingLabel={t('credentials.checking')} onCancel={onClose} />
        </form>
      )}
    </Modal>
  );
}

class UploadRejected extends Error {}

/** The generic e-mail platform: a CSV file of campaign metrics (max 5 MB); the parser's line errors are shown as they are. */
export function EmailUploadDialog({ integration, title, onClose }: DialogProps) {
  const { t } = useTranslation('integrations');
  const titleId = useId();
  const cache = useIntegrationCache();
  const utils = trpc.useUtils();
  const [file, setFile] = useState<File | null>(null);
  const [pending, setPending] = useState(false);
  const [fileError, setFileError] = useState<string | null>(null);
  const [rejection, setRejection] = useState<string | null>(null);

  async function send(chosen: File): Promise<Integration> {
    const csvText = await chosen.text();
    if (csvText.length <= TRPC_CSV_LIMIT_CHARACTERS) return utils.client.integrations.uploadEmailCsv.mutate({ fileName: chosen.name, csvText });
    // Larger files go to the REST twin of the procedure: tRPC's JSON bodies stop at 1 MB.
    try {
      const response = await apiRequest('POST', '/api/integrations/email-csv', { fileName: chosen.name, csvText });
      return (await response.json()) as Integration;
    } catch (error) {
      throw new UploadRejected(error instanceof Error ? error.message : String(error));
    }
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    // The file's size in bytes against the server's limit in characters: 5 MB either way.
    const problem = !file ? t('upload.choose') : file.size > MAX_EMAIL_CSV_CHARACTERS ? t('upload.tooLarge') : null;
    setFileError(problem);
    setRejection(null);
    if (problem || !file) return;
    setPending(true);
    try {
      const updated = await send(file);
      cache.replace(updated);
      cache.toastConnected(title, updated.accountName ?? undefined);
      setFile(null);
      onClose();
    } catch (error) {
      setRejection(error instanceof UploadRejected ? error.message : (serverMessage(error) ?? t('errors.connection')));
    } finally {
      setPending(false);
    }
  }

  return (
    <Modal open={integration !== null} titleId={titleId} busy={pending} onClose={onClose} testId="upload-dialog">
      {integration && (
        <form onSubmit={(event) => void submit(event)} noValidate className="space-y-4">
          <DialogHeading integration={integration} title={t('upload.title')} titleId={titleId} subtitle={t('upload.intro')} />
          {rejection && (
            <div role="alert" className="alert alert-error alert-soft text-sm">
              <span className="max-h-48 overflow-y-auto break-words whitespace-pre-line" data-testid="upload-error">
                {rejection}
              </span>
            </div>
          )}
          <div className="fieldset py-0">
            <label htmlFor="email-csv-file" className="fieldset-legend pt-0 pb-1 text-sm">
              {t('upload.label')}
            </label>
            <input
              id="email-csv-file"
              type="file"
              accept=".csv,text/csv"
              className={`file-input w-full ${fileError ? 'file-input-error' : ''}`}
              aria-invalid={fileError ? true : undefined}
              aria-describedby={fileError ? 'email-csv-file-error' : 'email-csv-file-hint'}
              onChange={(event) => {
                setFile(event.target.files?.[0] ?? null);
                setRejection(null);
                setFileError(null);
              }}
            />
            {fileError ? (
              <p id="email-csv-file-error" className="text-error text-xs">
                {fileError}
              </p>
            ) : (
              <p id="email-csv-file-hint" className="text-base-content/70 text-xs">
                {t('upload.hint')}
              </p>
            )}
          </div>
          <p className="text-base-content/70 text-xs">
            {t('upload.columns')} <code className="text-base-content/90 break-words">day, campaign_id, campaign_name, sends, opens, clicks, orders, revenue, cost, currency</code>
          </p>
          <DialogActions pending={pending} label={t('upload.submit')} pendingLabel={t('upload.uploading')} icon={<FileUpIcon aria-hidden="true" />} onCancel={onClose} />
        </form>
      )}
    </Modal>
  );
}

/** "Disconnect Shopify?" The data already synced stays; the stored credentials go. */
export function DisconnectDialog({ integration, title, onClose }: DialogProps) {
  const { t } = useTranslation('integrations');
  const titleId = useId();
  const cache = useIntegrationCache();
  const disconnect = trpc.integrations.disconnect.useMutation({
    onSuccess: (updated) => {
      cache.replace(updated);
      cache.toast({ title: t('toasts.disconnected', { platform: title }), variant: 'success' });
      onClose();
    },
    onError: (error) => cache.toast({ title: t('toasts.failed'), description: serverMessage(error) ?? t('errors.connection'), variant: 'destructive' }),
  });

  return (
    <Modal open={integration !== null} titleId={titleId} busy={disconnect.isPending} onClose={onClose} testId="disconnect-dialog">
      {integration && (
        <>
          <div className="flex items-start gap-4">
            <span className="bg-error/10 text-error grid size-10 shrink-0 place-items-center rounded-full text-lg" aria-hidden="true">
              <UnplugIcon />
            </span>
            <div className="min-w-0">
              <h2 id={titleId} className="text-lg font-semibold">
                {t('disconnect.title', { platform: title })}
              </h2>
              <p className="text-base-content/80 mt-2">{t('disconnect.body', { platform: title })}</p>
            </div>
          </div>
          <div className="modal-action">
            <button type="button" className="btn btn-ghost" onClick={onClose} disabled={disconnect.isPending}>
              {t('actions.cancel')}
            </button>
            <button
              type="button"
              className="btn btn-error gap-2"
              onClick={() => disconnect.mutate({ platform: integration.platform })}
              disabled={disconnect.isPending}
              aria-busy={disconnect.isPending}
            >
              {disconnect.isPending ? <span className="loading loading-spinner loading-sm" aria-hidden="true" /> : <PlugZapIcon aria-hidden="true" />}
              {t('disconnect.submit')}
            </button>
          </div>
        </>
      )}
    </Modal>
  );
}
