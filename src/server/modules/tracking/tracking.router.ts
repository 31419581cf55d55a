import { z } from 'zod';
import { droppedEventsOutput, recentEventsOutput, trackingHealthOutput, trackingSettingsInput, trackingSetupOutput, type TrackingSetup } from '../../../shared/tracking.ts';
import { router } from '../../trpc/init.ts';
import { storeProcedure } from '../../trpc/procedures.ts';
import { sqlRunner } from '../commerce/raw-sql.ts';
import { COLLECTOR_PATH, PIXEL_PATH, SERVER_EVENTS_PATH } from './collector.routes.ts';
import { sendTestEvent, trackingHealth } from './tracking-health.service.ts';
import { rotateSecretKey, trackingSettingsOf, updateTrackingSettings, type TrackingSettings } from './tracking-settings.service.ts';

// The active store's tracking set-up: its keys, the tag to install, allowed domains and privacy
// settings, the dropped-event counters and the latest events (the tracking screen reads these).

function setupOf(settings: TrackingSettings, origin: string | null): TrackingSetup {
  const base = origin ?? '';
  const pixelUrl = `${base}${PIXEL_PATH}`;
  const gpc = settings.honourGpc ? '' : ' data-gpc="ignore"';
  return {
    storeKey: settings.storeKey,
    snippet: `<script async src="${pixelUrl}" data-store="${settings.storeKey}"${gpc}></script>`,
    pixelUrl,
    collectorUrl: `${base}${COLLECTOR_PATH}`,
    serverEventsUrl: `${base}${SERVER_EVENTS_PATH}`,
    allowedDomains: settings.allowedDomains,
    honourGpc: settings.honourGpc,
    retentionMonths: settings.retentionMonths,
    paymentReferrers: settings.paymentReferrers,
    secretKeyHint: settings.secretKeyHint,
  };
}

export const trackingRouter = router({
  setup: storeProcedure
    .meta({ openapi: { method: 'GET', path: '/tracking/setup', tags: ['tracking'], summary: "The active store's tracking tag, keys and settings" } })
    .input(z.void())
    .output(trackingSetupOutput)
    .query(async ({ ctx }) => setupOf(await trackingSettingsOf(ctx.em, ctx.store.id), ctx.origin)),

  updateSettings: storeProcedure
    .meta({ openapi: { method: 'PATCH', path: '/tracking/settings', tags: ['tracking'], summary: 'Change allowed domains, GPC, retention or payment referrers' } })
    .input(trackingSettingsInput)
    .output(trackingSetupOutput)
    .mutation(async ({ ctx, input }) => setupOf(await updateTrackingSettings(ctx.em, ctx.store.id, input), ctx.origin)),

  rotateSecretKey: storeProcedure
    .meta({ openapi: { method: 'POST', path: '/tracking/secret-key', tags: ['tracking'], summary: 'A new secret key for the server-side events API (shown once)' } })
    .input(z.void())
    .output(z.object({ secretKey: z.string(), hint: z.string() }))
    .mutation(async ({ ctx }) => rotateSecretKey(ctx.em, ctx.store.id)),

  droppedEvents: storeProcedure
    .meta({ openapi: { method: 'GET', path: '/tracking/dropped-events', tags: ['tracking'], summary: 'Dropped events by day and reason (last 30 days)' } })
    .input(z.void())
    .output(droppedEventsOutput)
    .query(async ({ ctx }) =>
      sqlRunner(ctx.em).rows<{ day: string; reason: string; count: number }>(
        `select to_char(day, 'YYYY-MM-DD') as day, reason, count::int as count from tracking_drops
          where store_id = $1 and day >= (now() at time zone 'UTC')::date - 30 order by day desc, count desc`,
        [ctx.store.id],
      ),
    ),

  recentEvents: storeProcedure
    .meta({ openapi: { method: 'GET', path: '/tracking/recent-events', tags: ['tracking'], summary: 'The latest 50 events received' } })
    .input(z.void())
    .output(recentEventsOutput)
    .query(async ({ ctx }) => {
      const rows = await sqlRunner(ctx.em).rows<z.infer<typeof recentEventsOutput>[number]>(
        `select event_id as "eventId", name, source, to_char(occurred_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "occurredAt",
                url, consent, anonymous_id as "anonymousId", order_id as "orderId", value_minor::float8 as "valueMinor", currency
           from tracking_events where store_id = $1 and received_at > now() - interval '7 days'
          order by store_id, seq desc limit 50`,
        [ctx.store.id],
      );
      return rows;
    }),

  health: storeProcedure
    .meta({ openapi: { method: 'GET', path: '/tracking/health', tags: ['tracking'], summary: 'Events in the last 24 hours, the last event, and tracked purchases matched to orders (30 days)' } })
    .input(z.void())
    .output(trackingHealthOutput)
    .query(async ({ ctx }) => trackingHealth(ctx.em, ctx.store.id)),

  sendTestEvent: storeProcedure
    .meta({ openapi: { method: 'POST', path: '/tracking/test-event', tags: ['tracking'], summary: 'Writes a test event through the collector (shown in the live view and health)' } })
    .input(z.void())
    .output(z.object({ eventId: z.string(), occurredAt: z.string() }))
    .mutation(async ({ ctx }) => sendTestEvent(ctx.em, ctx.store.id, ctx.origin)),
});
