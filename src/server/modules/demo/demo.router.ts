import { demoLoadInput, demoLoadOutput } from '../../../shared/demo.ts';
import { router } from '../../trpc/init.ts';
import { storeProcedure } from '../../trpc/procedures.ts';
import { loadDemoData } from './demo.service.ts';

export const demoRouter = router({
  /**
   * Loads the default demo (12 months, ~10,000 orders, 3 ad platforms, Klaviyo) into the active
   * store; a store that already has orders answers 409. Guests and view-only members are refused
   * by the builder (it is a mutation).
   */
  load: storeProcedure
    .input(demoLoadInput)
    .output(demoLoadOutput)
    .mutation(async ({ ctx }) => loadDemoData(ctx.em, ctx.store)),
});
