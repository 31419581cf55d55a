import type { EntityManager } from '@mikro-orm/postgresql';
import { TRPCError } from '@trpc/server';
import { parseArgs } from 'node:util';
import { describeError } from '../server/errors.ts';
import { memorySession } from '../server/modules/sessions/session-control.ts';
import { createContextInner, createServices } from '../server/trpc/context.ts';
import { createCaller } from '../server/trpc/router.ts';

export const ADMIN_USAGE = `Usage: npm run admin -- <command> [options]

Commands:
  create-user --username U --email E --password P [--admin]
  grant-plan  --username U --plan basic|professional|business|enterprise [--days 30]
  list-users
  outbox      [--to EMAIL] [--limit 20]   e-mails the product sent (or logged while no SMTP is set up)
  rebuild-rollups --store ID             recomputes a store's daily rollups from its orders, refunds and metrics`;

/** The admin procedures, called with full types and no HTTP: the CLI acts as the system administrator. */
export async function adminCaller(em: EntityManager) {
  return (await systemCaller(em)).admin;
}

async function systemCaller(em: EntityManager) {
  const context = await createContextInner({ em, session: memorySession(), services: createServices(), systemActor: true });
  return createCaller(context);
}

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name];
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`);
  return value;
}

export class UsageError extends Error {}

function table(rows: Record<string, unknown>[]): string {
  if (rows.length === 0) return '(no users)';
  const columns = Object.keys(rows[0]!);
  const cell = (value: unknown) => (value === null || value === undefined ? '-' : String(value));
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => cell(row[column]).length)));
  const line = (values: string[]) => values.map((value, index) => value.padEnd(widths[index]!)).join('  ').trimEnd();
  return [line(columns), line(widths.map((width) => '-'.repeat(width))), ...rows.map((row) => line(columns.map((column) => cell(row[column]))))].join('\n');
}

/** Runs one CLI command and returns what to print; throws UsageError or a procedure's error. */
export async function runAdminCommand(argv: string[], em: EntityManager): Promise<string> {
  const [command, ...rest] = argv;
  const { values } = parseArgs({
    args: rest,
    options: {
      username: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      admin: { type: 'boolean', default: false },
      plan: { type: 'string' },
      days: { type: 'string' },
      to: { type: 'string' },
      limit: { type: 'string' },
      store: { type: 'string' },
    },
    strict: true,
  });
  const admin = await adminCaller(em);
  switch (command) {
    case 'create-user': {
      const user = await admin.createUser({
        username: required(values, 'username'),
        email: required(values, 'email'),
        password: required(values, 'password'),
        isAdmin: values.admin ?? false,
      });
      return `Created ${user.isAdmin ? 'administrator' : 'user'} ${user.username} (id ${user.id}, ${user.email})`;
    }
    case 'grant-plan': {
      const days = values.days === undefined ? 30 : Number(values.days);
      if (!Number.isInteger(days)) throw new UsageError('--days must be a whole number');
      const granted = await admin.grantPlan({
        username: required(values, 'username'),
        tier: required(values, 'plan') as 'basic',
        days,
      });
      return `Granted ${granted.plan} to ${granted.username} until ${granted.currentPeriodEnd}`;
    }
    case 'list-users': {
      const users = await admin.listUsers();
      return table(
        users.map((user) => ({
          id: user.id,
          username: user.username,
          email: user.email,
          admin: user.isAdmin ? 'yes' : 'no',
          stores: user.stores,
          plan: user.plan,
          status: user.subscriptionStatus,
          until: user.currentPeriodEnd?.slice(0, 10) ?? null,
        })),
      );
    }
    case 'outbox': {
      const limit = values.limit === undefined ? 20 : Number(values.limit);
      if (!Number.isInteger(limit)) throw new UsageError('--limit must be a whole number');
      const emails = await (await systemCaller(em)).email.outbox({ to: values.to, limit });
      if (emails.length === 0) return '(no e-mails)';
      return emails
        .map((email) => `#${email.id} ${email.createdAt} ${email.status} to ${email.toAddress}\nSubject: ${email.subject}\n\n${email.textBody}`)
        .join('\n\n' + '-'.repeat(72) + '\n');
    }
    case 'rebuild-rollups': {
      const storeId = Number(required(values, 'store'));
      if (!Number.isInteger(storeId) || storeId <= 0) throw new UsageError('--store must be a store id');
      const rebuilt = await (await systemCaller(em)).commerce.rebuildRollups({ storeId });
      return `Rebuilt the rollups of store ${rebuilt.storeId}: ${rebuilt.dailyRows} daily rows, ${rebuilt.channelRows} channel rows in ${rebuilt.milliseconds} ms`;
    }
    default:
      throw new UsageError(command ? `Unknown command: ${command}` : 'No command given');
  }
}

export function describeCommandError(error: unknown): string {
  if (error instanceof UsageError) return `${error.message}\n\n${ADMIN_USAGE}`;
  if (error instanceof TRPCError) {
    const described = describeError(error);
    const details = described.fieldErrors?.slice(1).map((issue) => `  ${issue.field}: ${issue.message}`) ?? [];
    return [described.message, ...details].join('\n');
  }
  if (error instanceof Error && error.name === 'TypeError' && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
    return `${error.message}\n\n${ADMIN_USAGE}`;
  }
  return error instanceof Error ? error.message : String(error);
}
