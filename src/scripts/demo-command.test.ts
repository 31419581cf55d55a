import { describe, expect, it } from 'vitest';
import { useTestDatabase } from '../../test/harness.ts';
import { verifyPassword } from '../server/modules/auth/passwords.ts';
import { sqlRunner } from '../server/modules/commerce/raw-sql.ts';
import { accessOf } from '../server/modules/subscriptions/subscriptions.service.ts';
import { User } from '../server/modules/users/user.entity.ts';
import { STORE_HAS_DATA_MESSAGE } from '../shared/demo.ts';
import { UsageError } from './admin-commands.ts';
import { parseDemoArgs, runDemoCommand } from './demo-command.ts';

const database = useTestDatabase();

describe('npm run demo', () => {
  it('creates the demo user (business plan, printed password) and "Demo Store", fills it, and refuses to fill it twice', async () => {
    const lines: string[] = [];
    const summary = await runDemoCommand(parseDemoArgs(['--orders', '400', '--months', '2', '--campaigns', '2']), database.orm.em.fork(), (line) => lines.push(line));

    const password = /password: (\S+)$/.exec(lines[0] ?? '')?.[1];
    expect(lines[0]).toMatch(/^Created user demo with the business plan; password: \S{16}$/);
    const user = await database.orm.em.fork().findOneOrFail(User, { username: 'demo' }, { populate: ['passwordHash', 'activeStore'] });
    expect(await verifyPassword(user.passwordHash, password!)).toBe(true);
    expect((await accessOf(database.orm.em.fork(), user.id)).tier).toBe('business');
    expect(user.activeStore?.name).toBe('Demo Store');
    expect(lines.some((line) => / done +orders [\d,]+ \([\d,]+\/s\)/.test(line))).toBe(true);
    expect(summary).toMatch(/^Loaded [\d,]+ orders, [\d,]+ refunds, 200 products, [\d,]+ ad metric rows and [\d,]+ e-mail metric rows into store \d+ in [\d.]+ s/);

    const [counts] = await sqlRunner(database.orm.em.fork()).rows<{ orders: number; campaigns: number }>(
      `select (select count(*)::int from orders where store_id = $1) as orders,
              (select count(distinct (platform, campaign_id))::int from ad_metrics_daily where store_id = $1) as campaigns`,
      [user.activeStore!.id],
    );
    expect(counts!.orders).toBeGreaterThan(350);
    expect(counts!.orders).toBeLessThan(450);
    expect(counts!.campaigns).toBe(6); // 3 platforms x --campaigns 2

    const again = runDemoCommand(parseDemoArgs(['--orders', '400']), database.orm.em.fork(), () => {});
    await expect(again).rejects.toBeInstanceOf(UsageError);
    await expect(again).rejects.toThrow(STORE_HAS_DATA_MESSAGE);
  });

  it('checks its options before touching the database', () => {
    expect(() => parseDemoArgs(['--orders', '2000000'])).toThrow('--orders must be a whole number from 1 to 1000000');
    expect(() => parseDemoArgs(['--months', 'twelve'])).toThrow('--months must be a whole number from 1 to 36');
    expect(() => parseDemoArgs(['--colour', 'red'])).toThrow(/Unknown option '--colour'/);
    expect(parseDemoArgs(['--store', '7', '--seed', '3', '--ad-months', '24'])).toEqual({
      user: undefined,
      store: 7,
      options: { orders: undefined, months: undefined, seed: 3, campaignsPerPlatform: undefined, adHistoryMonths: 24 },
    });
  });
});
