import { anomalyIdInput, anomalyItem } from '../../../shared/anomalies.ts';
import { anomalyAlertSettings as alertSettingsSchema, anomalyExplainInput, anomalyExplainOutput, anomalyListInput, anomalyPanelOutput } from '../../../shared/anomaly-panel.ts';
import { router } from '../../trpc/init.ts';
import { storeProcedure } from '../../trpc/procedures.ts';
import { requireLlm } from '../llm/llm-provider.ts';
import { anomalyAlertSettings, setAnomalyAlertSettings } from './anomaly-alerts.ts';
import { explainAnomaly } from './anomaly-explain.ts';
import { getAnomaly, listAnomalies, setAnomalyState } from './anomalies.service.ts';

// The active store's anomalies (README, "Anomaly insights"): the dashboard panel's list, the two
// state changes the spec names (acknowledge, mark resolved), the optional AI explanation, and the
// store's e-mail alert setting. Changes need write access to the store (storeProcedure refuses
// invited viewers; guest mode refuses every mutation).

export const anomaliesRouter = router({
  list: storeProcedure
    .input(anomalyListInput)
    .output(anomalyPanelOutput)
    .query(async ({ ctx, input }) => ({ ...(await listAnomalies(ctx.em, ctx.store, input)), explainAvailable: ctx.services.llm !== null })),

  acknowledge: storeProcedure
    .input(anomalyIdInput)
    .output(anomalyItem)
    .mutation(({ ctx, input }) => setAnomalyState(ctx.em, ctx.store, ctx.user.id, input.id, 'acknowledged')),

  resolve: storeProcedure
    .input(anomalyIdInput)
    .output(anomalyItem)
    .mutation(({ ctx, input }) => setAnomalyState(ctx.em, ctx.store, ctx.user.id, input.id, 'resolved')),

  /** A query (it changes nothing), so invited viewers may ask too; refused with a clear message when no LLM is configured. */
  explain: storeProcedure
    .input(anomalyExplainInput)
    .output(anomalyExplainOutput)
    .query(async ({ ctx, input }) => {
      const llm = requireLlm(ctx.services.llm);
      const item = await getAnomaly(ctx.em, ctx.store, input.id);
      return { text: await explainAnomaly(llm, item, input.language, ctx.store.currency) };
    }),

  alertSettings: storeProcedure
    .output(alertSettingsSchema)
    .query(({ ctx }) => anomalyAlertSettings(ctx.em, ctx.store)),

  setAlertSettings: storeProcedure
    .input(alertSettingsSchema)
    .output(alertSettingsSchema)
    .mutation(({ ctx, input }) => setAnomalyAlertSettings(ctx.em, ctx.store, input)),
});
