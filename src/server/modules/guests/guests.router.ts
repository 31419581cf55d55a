import { router } from '../../trpc/init.ts';

export const guestsRouter = router({});
