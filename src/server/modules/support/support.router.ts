import { router } from '../../trpc/init.ts';

export const supportRouter = router({});
