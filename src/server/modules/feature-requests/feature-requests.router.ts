import { router } from '../../trpc/init.ts';

export const featureRequestsRouter = router({});
