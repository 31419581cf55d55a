import { MailIcon, SendIcon } from 'lucide-react';
import { useTranslation } from 'react-i18next';
import { Link } from 'wouter';
import { AUDIENCE_PLATFORMS, type AudiencePlatform, type AudiencePushView } from '../../../shared/audiences.ts';
import { PLATFORM_NAMES } from '../../../shared/platforms.ts';
import { useViewOnly } from '../../components/data-page.tsx';
import { toast } from '../../components/toast.tsx';
import { useFigureFormat } from '../../lib/figure-format.ts';
import { serverMessage } from '../../lib/session.ts';
import { trpc } from '../../lib/trpc.ts';

// "Push to Klaviyo / Mailchimp" for the chosen segment or the at-risk customers (README, "Segment
// push to Klaviyo and Mailchimp"): one button per connected e-mail platform; audiences.push queues
// the push (or answers the one already queued or running: a second click shows that one), and
// audiences.status is asked again every few seconds while a push is under way.

const PUSH_POLL_MS = 1_500;
const running = (push: AudiencePushView) => push.status === 'queued' || push.status === 'running';

export function AudiencePush({ segment, label }: { segment: string | null; label: string }) {
  const { t } = useTranslation('loyalty');
  const viewOnly = useViewOnly();
  const integrations = trpc.integrations.list.useQuery(undefined, { enabled: !viewOnly });
  const status = trpc.audiences.status.useQuery(
    { segment: segment ?? undefined },
    { enabled: segment !== null && !viewOnly, refetchInterval: (query) => (query.state.data?.pushes.some(running) ? PUSH_POLL_MS : false) },
  );
  const utils = trpc.useUtils();
  const push = trpc.audiences.push.useMutation({
    onSuccess: () => void utils.audiences.status.invalidate(),
    onError: (error) => toast({ title: t('push.failed'), description: serverMessage(error) ?? undefined, variant: 'destructive' }),
  });

  // Guests look only: nothing to push with.
  if (viewOnly || segment === null || !integrations.data) return null;
  const connected = AUDIENCE_PLATFORMS.filter((platform) => integrations.data.some((row) => row.platform === platform && (row.status === 'connected' || row.status === 'syncing')));
  if (connected.length === 0) {
    return (
      <p className="text-base-content/70 flex flex-wrap items-center gap-1.5 text-sm" data-testid="push-none">
        <MailIcon className="size-4" aria-hidden="true" />
        {t('push.noneConnected')}
        <Link href="/integrations" className="link link-primary">
          {t('push.connect')}
        </Link>
      </p>
    );
  }
  const latest = (platform: AudiencePlatform) => status.data?.pushes.find((row) => row.platform === platform && row.segment === segment);
  return (
    <div className="bg-base-200/60 rounded-box flex flex-col gap-2 px-3 py-2.5" data-testid="audience-push">
      <div className="flex flex-wrap items-center gap-2">
        <span className="text-sm font-medium">{t('push.title', { segment: label })}</span>
        {connected.map((platform) => {
          const current = latest(platform);
          const busy = (current !== undefined && running(current)) || (push.isPending && push.variables?.platform === platform);
          return (
            <button
              key={platform}
              type="button"
              className="btn btn-sm btn-primary gap-2"
              onClick={() => push.mutate({ platform, segment, label })}
              disabled={push.isPending && push.variables?.platform === platform}
              data-testid={`push-${platform}`}
            >
              {busy ? <span className="loading loading-spinner loading-xs" aria-hidden="true" /> : <SendIcon className="size-4" aria-hidden="true" />}
              {t('push.button', { platform: PLATFORM_NAMES[platform] })}
            </button>
          );
        })}
      </div>
      {connected.map((platform) => {
        const current = latest(platform);
        return current ? <PushProgress key={platform} push={current} /> : null;
      })}
    </div>
  );
}

function PushProgress({ push }: { push: AudiencePushView }) {
  const { t } = useTranslation('loyalty');
  const format = useFigureFormat();
  const values = { platform: PLATFORM_NAMES[push.platform], list: push.listName, done: format.integer(push.done), total: format.integer(push.total) };
  return (
    <div className="space-y-1 text-sm" role="status" aria-live="polite" data-testid="push-progress" data-platform={push.platform} data-status={push.status} data-done={push.done} data-total={push.total}>
      <p className={push.status === 'failed' ? 'text-error' : ''}>
        {t(`push.status.${push.status}`, values)}
        {push.error && <span className="block text-xs" data-testid="push-error">{push.error}</span>}
      </p>
      {running(push) && <progress className="progress progress-primary w-full max-w-md" value={push.done} max={Math.max(push.total, 1)} aria-label={t('push.progressLabel', values)} />}
    </div>
  );
}
