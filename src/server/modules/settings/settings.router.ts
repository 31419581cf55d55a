import { router } from '../../trpc/init.ts';

export const settingsRouter = router({});
