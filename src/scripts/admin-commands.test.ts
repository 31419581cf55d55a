import { describe, expect, it } from 'vitest';
import { uniqueUser, useTestDatabase } from '../../test/harness.ts';
import { verifyPassword } from '../server/modules/auth/passwords.ts';
import { User } from '../server/modules/users/user.entity.ts';
import { describeCommandError, runAdminCommand } from './admin-commands.ts';

const database = useTestDatabase();

const run = (...argv: string[]) => runAdminCommand(argv, database.orm.em.fork());

describe('admin CLI', () => {
  it('create-user makes an account that can sign in, admin when asked', async () => {
    const { username, email, password } = uniqueUser('cli');
    expect(await run('create-user', '--username', username, '--email', email, '--password', password, '--admin')).toMatch(
      new RegExp(`^Created administrator ${username} \\(id \\d+, ${email}\\)$`),
    );
    const user = await database.orm.em.fork().findOneOrFail(User, { username }, { populate: ['passwordHash'] });
    expect(user.isAdmin).toBe(true);
    expect(await verifyPassword(user.passwordHash, password)).toBe(true);
  });

  it('grant-plan gives an active plan for the given days and list-users shows it', async () => {
    const { username, email, password } = uniqueUser('grant');
    await run('create-user', '--username', username, '--email', email, '--password', password);
    const output = await run('grant-plan', '--username', username, '--plan', 'business', '--days', '7');
    expect(output).toMatch(new RegExp(`^Granted Business to ${username} until \\d{4}-\\d{2}-\\d{2}T`));
    const until = new Date(output.split(' until ')[1]!);
    expect((until.getTime() - Date.now()) / 86_400_000).toBeCloseTo(7, 1);

    const listing = await run('list-users');
    const row = listing.split('\n').find((line) => line.includes(username))!;
    expect(row).toMatch(/\bno\b.*\b0\b.*Business.*active/);
    expect(listing.split('\n')[0]).toMatch(/^id\s+username\s+email\s+admin\s+stores\s+plan\s+status\s+until$/);
  });

  it('explains bad input without a stack trace', async () => {
    const { username, email } = uniqueUser('badcli');
    const failures = await Promise.all([
      run('grant-plan', '--username', 'nobody-at-all', '--plan', 'business').catch(describeCommandError),
      run('grant-plan', '--username', username, '--plan', 'gold').catch(describeCommandError),
      run('create-user', '--username', username, '--email', email, '--password', 'short').catch(describeCommandError),
      run('create-user', '--username', username).catch(describeCommandError),
      run('frobnicate').catch(describeCommandError),
      run('list-users', '--bogus').catch(describeCommandError),
    ]);
    expect(failures).toEqual([
      'User not found',
      'Plan must be one of basic, professional, business, enterprise',
      'Password must be at least 10 characters',
      expect.stringMatching(/^--email is required\n\nUsage:/),
      expect.stringMatching(/^Unknown command: frobnicate\n\nUsage:/),
      expect.stringMatching(/Unknown option '--bogus'/),
    ]);
  });
});
