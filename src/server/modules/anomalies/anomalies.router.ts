import { anomalyIdInput, anomalyItem, anomalyList, anomalyRestList, anomalyRestListInput, anomalyRestState } from '../../../shared/anomalies.ts';
import { router } from '../../trpc/init.ts';
import { storeProcedure } from '../../trpc/procedures.ts';
import { listAnomalies, setAnomalyState } from './anomalies.service.ts';
import { languageOf, recommendationText } from './recommendation-text.ts';

// Anomaly insights of the active store (README, "Anomaly insights"): the dashboard panel's list, and
// acknowledging or resolving an item. Changing a state is a mutation of storeProcedure, so a guest in
// view-as mode and a read-only member get the app's usual refusal.

export const anomaliesRouter = router({
  list: storeProcedure.output(anomalyList).query(({ ctx }) => listAnomalies(ctx.em, ctx.store)),

  acknowledge: storeProcedure
    .input(anomalyIdInput)
    .output(anomalyItem)
    .mutation(({ ctx, input }) => setAnomalyState(ctx.em, ctx.store.id, input.id, 'acknowledged', ctx.sessionUser.id)),

  resolve: storeProcedure
    .input(anomalyIdInput)
    .output(anomalyItem)
    .mutation(({ ctx, input }) => setAnomalyState(ctx.em, ctx.store.id, input.id, 'resolved', ctx.sessionUser.id)),

  /** GET /api/anomalies: the documented shape, the recommendation as a sentence in `lang`. */
  rest: storeProcedure
    .meta({ openapi: { method: 'GET', path: '/anomalies', tags: ['anomalies'], summary: 'Detected anomalies of the active store, newest and most severe first, with a recommendation in the language asked for (lang=en|es|fr|de)' } })
    .input(anomalyRestListInput)
    .output(anomalyRestList)
    .query(async ({ ctx, input }) => {
      const list = await listAnomalies(ctx.em, ctx.store);
      const language = languageOf(input.lang);
      return {
        status: list.status,
        items: list.items.map((item) => ({
          id: item.id, metric: item.metric, scope: item.scope, detectedValue: item.detectedValue, expectedValue: item.expectedValue,
          percentChange: item.percentChange, severity: item.severity, recommendation: recommendationText(item.recommendation, language), state: item.state, detectedAt: item.detectedAt,
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
