import { anomalyIdInput, anomalyItem, anomalyRestList, anomalyRestListInput, anomalyRestState } from '../../../shared/anomalies.ts';
import { anomalyLanguageOf, recommendationSentence } from '../../../shared/anomaly-recommendations.ts';
import { anomalyAlertSettings as alertSettingsSchema, anomalyExplainInput, anomalyExplainOutput, anomalyListInput, anomalyPanelOutput } from '../../../shared/anomaly-panel.ts';
import { router } from '../../trpc/init.ts';
import { storeProcedure } from '../../trpc/procedures.ts';
import { requireLlm } from '../llm/llm-provider.ts';
import { getAnomaly, listAnomalies, setAnomalyState } from './anomalies.service.ts';
import { anomalyAlertSettings, setAnomalyAlertSettings } from './anomaly-alerts.ts';
import { explainAnomaly } from './anomaly-explain.ts';

// Anomaly insights of the active store (README, "Anomaly insights"): the dashboard panel's list, the
// two state changes the spec names (acknowledge, mark resolved), the optional AI explanation, the
// store's e-mail alert setting, and the REST surface. Changes are mutations of storeProcedure, so a
// guest in view-as mode and a read-only member get the app's usual refusal.

export const anomaliesRouter = router({
  list: storeProcedure
    .input(anomalyListInput)
    .output(anomalyPanelOutput)
    .query(async ({ ctx, input }) => ({ ...(await listAnomalies(ctx.em, ctx.store, { includeResolved: input.includeResolved })), explainAvailable: ctx.services.llm !== null })),

  acknowledge: storeProcedure
    .input(anomalyIdInput)
    .output(anomalyItem)
    .mutation(({ ctx, input }) => setAnomalyState(ctx.em, ctx.store.id, input.id, 'acknowledged', ctx.sessionUser.id)),

  resolve: storeProcedure
    .input(anomalyIdInput)
    .output(anomalyItem)
    .mutation(({ ctx, input }) => setAnomalyState(ctx.em, ctx.store.id, input.id, 'resolved', ctx.sessionUser.id)),

  /** A query (it changes nothing), so invited viewers may ask too; refused with a clear message when no LLM is configured. */
  explain: storeProcedure
    .input(anomalyExplainInput)
    .output(anomalyExplainOutput)
    .query(async ({ ctx, input }) => {
      const llm = requireLlm(ctx.services.llm);
      const item = await getAnomaly(ctx.em, ctx.store.id, input.id);
      return { text: await explainAnomaly(llm, item, input.language, ctx.store.currency) };
    }),

  alertSettings: storeProcedure
    .output(alertSettingsSchema)
    .query(({ ctx }) => anomalyAlertSettings(ctx.em, ctx.store)),

  setAlertSettings: storeProcedure
    .input(alertSettingsSchema)
    .output(alertSettingsSchema)
    .mutation(({ ctx, input }) => setAnomalyAlertSettings(ctx.em, ctx.store, input)),

  /** GET /api/anomalies: the documented shape, the recommendation as a sentence in `lang`. */
  rest: storeProcedure
    .meta({ openapi: { method: 'GET', path: '/anomalies', tags: ['anomalies'], summary: 'Detected anomalies of the active store, newest and most severe first, with a recommendation in the language asked for (lang=en|es|fr|de)' } })
    .input(anomalyRestListInput)
    .output(anomalyRestList)
    .query(async ({ ctx, input }) => {
      const list = await listAnomalies(ctx.em, ctx.store);
      const language = anomalyLanguageOf(input.lang);
      return {
        status: list.status,
        items: list.items.map((item) => ({
          id: item.id, metric: item.metric, scope: item.scope, detectedValue: item.detectedValue, expectedValue: item.expectedValue,
          percentChange: item.percentChange, severity: item.severity, recommendation: recommendationSentence(item.recommendation, item.scope.label, language), state: item.state, detectedAt: item.detectedAt,
        })),
      };
    }),

  restAcknowledge: storeProcedure
    .meta({ openapi: { method: 'POST', path: '/anomalies/{id}/acknowledge', tags: ['anomalies'], summary: 'Acknowledge an anomaly of the active store' } })
    .input(anomalyIdInput)
    .output(anomalyRestState)
    .mutation(async ({ ctx, input }) => stateOf(await setAnomalyState(ctx.em, ctx.store.id, input.id, 'acknowledged', ctx.sessionUser.id))),

  restResolve: storeProcedure
    .meta({ openapi: { method: 'POST', path: '/anomalies/{id}/resolve', tags: ['anomalies'], summary: 'Mark an anomaly of the active store resolved (it does not come back for the same day and metric)' } })
    .input(anomalyIdInput)
    .output(anomalyRestState)
    .mutation(async ({ ctx, input }) => stateOf(await setAnomalyState(ctx.em, ctx.store.id, input.id, 'resolved', ctx.sessionUser.id))),
});

const stateOf = (item: { id: string; state: 'new' | 'acknowledged' | 'resolved'; stateChangedAt: string | null }) => ({ id: item.id, state: item.state, stateChangedAt: item.stateChangedAt });
