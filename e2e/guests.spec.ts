import { expect, test, type Page } from '@playwright/test';
import { createStore, distinctAddress, invitationPathFor, otherPerson, PASSWORD, registered, screenshots, seriousViolations, sql, startTrial, uniqueName } from './admin-helpers.ts';
import { nothingLoading } from './waits.ts';

test.beforeEach(async ({ page }) => page.context().setExtraHTTPHeaders(distinctAddress()));

const toast = (page: Page) => page.getByTestId('toast');

test('an owner invites a guest, who registers from the link, sees the store read-only, and loses access when removed', async ({ page, browser, baseURL }) => {
  // The owner, on a Professional trial, with one store.
  const owner = await registered(page.request, 'owner');
  await startTrial(page.request, 'professional');
  const store = await createStore(page.request, 'Guest Journey Goods');
  const guestEmail = `${uniqueName('guest')}@example.com`;

  await page.goto('/guest-users');
  await expect(page.getByRole('heading', { level: 1, name: 'Guest Users' })).toBeVisible();
  await expect(page.getByLabel('Store', { exact: true })).toHaveValue(String(store.id));
  await page.getByLabel('Email address').fill(guestEmail);
  await page.getByRole('button', { name: 'Send invitation' }).click();
  await expect(toast(page)).toContainText('Invitation sent');
  await expect(toast(page)).toContainText(`We emailed ${guestEmail} an invitation to view Guest Journey Goods.`);
  const pending = page.getByTestId('pending-invitations');
  await expect(pending).toContainText(guestEmail);
  await expect(pending).toContainText('for Guest Journey Goods');
  await expect(pending).toContainText('expires in 7 days');

  // The guest opens the e-mailed link in their own browser and registers from the accept page.
  const link = invitationPathFor(guestEmail);
  const guest = await otherPerson(browser, baseURL);
  await guest.page.goto(link);
  await expect(guest.page.getByRole('heading', { level: 1 })).toHaveText(`${owner.username} invited you to view Guest Journey Goods`);
  const details = guest.page.getByTestId('invitation-details');
  await expect(details).toContainText('Guest Journey Goods');
  await expect(details).toContainText(owner.username);
  await expect(details).toContainText(guestEmail);
  const email = guest.page.getByLabel('Email', { exact: true });
  await expect(email).toHaveValue(guestEmail);
  await expect(email).toHaveAttribute('readonly', '');
  await expect(guest.page.getByRole('link', { name: 'Sign in to accept' })).toHaveAttribute(
    'href',
    `/auth?redirect=${encodeURIComponent(link)}`,
  );
  const guestName = uniqueName('guestuser');
  await guest.page.getByLabel('Username', { exact: true }).fill(guestName);
  await guest.page.getByLabel('Password', { exact: true }).fill(PASSWORD);
  await guest.page.getByRole('button', { name: 'Create account and accept' }).click();
  await expect(toast(guest.page)).toContainText('Invitation accepted');
  await expect(guest.page).toHaveURL(/\/dashboard$/);

  // The guest sees the shared store, as a guest account, and cannot rename it.
  expect(await (await guest.page.request.get('/api/user')).json()).toMatchObject({ username: guestName, isGuest: true });
  expect(await (await guest.page.request.get('/api/stores')).json()).toEqual([
    expect.objectContaining({ id: store.id, name: 'Guest Journey Goods', role: 'guest', ownerUsername: owner.username }),
  ]);
  expect((await (await guest.page.request.get('/api/stores/active')).json()).store.id).toBe(store.id);
  expect(await (await guest.page.request.get('/api/subscription/current')).json()).toEqual({ hasActiveSubscription: true, subscription: null, access: 'guest' });
  const rename = await guest.page.request.patch(`/api/stores/${store.id}`, { data: { name: 'Renamed by the guest' } });
  expect(rename.status()).toBe(404);
  expect(await rename.json()).toEqual({ message: 'Store not found' });
  await guest.page.goto('/manage-users');
  await expect(guest.page.getByRole('heading', { name: 'Stores shared with you' })).toBeVisible();
  await expect(guest.page.getByText(`shared by ${owner.username}`)).toBeVisible();

  // The owner sees the guest among the people with access, and removes them.
  await page.goto('/manage-users');
  const people = page.getByTestId('people-table');
  await expect(people.getByRole('row', { name: new RegExp(owner.username) })).toContainText('Owner');
  const guestRow = people.getByRole('row', { name: new RegExp(guestName) });
  await expect(guestRow).toContainText(guestEmail);
  await expect(guestRow).toContainText('Guest (read-only)');
  await guestRow.getByRole('button', { name: `Remove ${guestName} from Guest Journey Goods` }).click();
  const confirm = page.getByRole('dialog', { name: 'Remove this guest?' });
  await expect(confirm).toContainText(`${guestName} will lose access to Guest Journey Goods immediately.`);
  await confirm.getByRole('button', { name: 'Remove', exact: true }).click();
  await expect(toast(page)).toContainText('Guest removed');
  await expect(people.getByRole('row', { name: new RegExp(guestName) })).toHaveCount(0);
  expect((await (await page.request.get('/api/stores')).json())[0].name).toBe('Guest Journey Goods');

  // The guest's access ends at once.
  expect(await (await guest.page.request.get('/api/stores')).json()).toEqual([]);
  expect(await (await guest.page.request.get('/api/stores/active')).json()).toEqual({ store: null });
  expect(await (await guest.page.request.get('/api/subscription/current')).json()).toMatchObject({ hasActiveSubscription: false, access: 'none' });
  const oldLink = await guest.page.request.post(`/api/invitations/${link.split('token=')[1]}/accept`);
  expect(await oldLink.json()).toEqual({ message: 'This invitation has expired or was revoked.' });
  await guest.context.close();
});

test('the accept page explains a link for another address and offers to log out', async ({ page, browser, baseURL }) => {
  await registered(page.request, 'inviter');
  await startTrial(page.request, 'business');
  const store = await createStore(page.request, 'Wrong Door Shop');
  const invited = `${uniqueName('invited')}@example.com`;
  expect((await page.request.post('/api/guests/invitations', { data: { storeId: store.id, email: invited } })).status()).toBe(201);
  const link = invitationPathFor(invited);

  const someoneElse = await otherPerson(browser, baseURL);
  const other = await registered(someoneElse.page.request, 'someoneelse');
  await someoneElse.page.goto(link);
  await expect(someoneElse.page.getByRole('alert')).toHaveText(
    `You are signed in as ${other.username} (${other.email}), but this invitation was sent to ${invited}. Log out, then sign in or create an account with the invited address.`,
  );
  await expect(someoneElse.page.getByRole('button', { name: 'Accept invitation' })).toHaveCount(0);
  await someoneElse.page.getByRole('button', { name: 'Log out' }).click();
  await expect(someoneElse.page.getByRole('button', { name: 'Create account and accept' })).toBeVisible();
  await expect(someoneElse.page.getByLabel('Email', { exact: true })).toHaveValue(invited);
  expect((await someoneElse.page.request.get('/api/user')).status()).toBe(401);
  await someoneElse.context.close();
});

test('a signed-in user with the invited address accepts with one click', async ({ page, browser, baseURL }) => {
  const owner = await registered(page.request, 'clickowner');
  await startTrial(page.request, 'professional');
  const store = await createStore(page.request, 'One Click Shop');
  const person = await otherPerson(browser, baseURL);
  const existing = await registered(person.page.request, 'existing');
  expect((await page.request.post('/api/guests/invitations', { data: { storeId: store.id, email: existing.email.toUpperCase() } })).status()).toBe(201);

  await person.page.goto(invitationPathFor(existing.email));
  await expect(person.page.getByRole('heading', { level: 1 })).toHaveText(`${owner.username} invited you to view One Click Shop`);
  await person.page.getByRole('button', { name: 'Accept invitation' }).click();
  await expect(toast(person.page)).toContainText('You can now view One Click Shop.');
  await expect(person.page).toHaveURL(/\/dashboard$/);
  expect((await (await person.page.request.get('/api/stores/active')).json()).store).toMatchObject({ id: store.id, role: 'guest' });
  await person.context.close();
});

test('the accept page designs its unusable states: no token, unknown, revoked, expired, already accepted', async ({ page, playwright, baseURL }) => {
  const ownerSide = await playwright.request.newContext({ baseURL, extraHTTPHeaders: distinctAddress() });
  await registered(ownerSide, 'statesowner');
  await startTrial(ownerSide, 'professional');
  const store = await createStore(ownerSide, 'States Shop');

  await page.goto('/accept-invite');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('This invitation link is incomplete');

  await page.goto('/accept-invite?token=not-a-real-token');
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Invitation not found');

  const revokedEmail = `${uniqueName('revoked')}@example.com`;
  const revoked = await (await ownerSide.post('/api/guests/invitations', { data: { storeId: store.id, email: revokedEmail } })).json();
  const revokedLink = invitationPathFor(revokedEmail);
  expect((await ownerSide.delete(`/api/guests/invitations/${revoked.id}`)).status()).toBe(200);
  await page.goto(revokedLink);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('This invitation was withdrawn');
  await expect(page.getByTestId('invite-state')).toContainText('withdrew this invitation to States Shop');

  const expiredEmail = `${uniqueName('expired')}@example.com`;
  const expired = await (await ownerSide.post('/api/guests/invitations', { data: { storeId: store.id, email: expiredEmail } })).json();
  await sql('update guest_invitations set expires_at = now() - interval \'1 hour\' where id = $1', [expired.id]);
  await page.goto(invitationPathFor(expiredEmail));
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('This invitation has expired');
  await expect(page.getByTestId('invite-state')).toContainText('Ask');

  const acceptedEmail = `${uniqueName('accepted')}@example.com`;
  await ownerSide.post('/api/guests/invitations', { data: { storeId: store.id, email: acceptedEmail } });
  const acceptedLink = invitationPathFor(acceptedEmail);
  const accepter = await playwright.request.newContext({ baseURL, extraHTTPHeaders: distinctAddress() });
  await registered(accepter, 'accepter', acceptedEmail);
  expect((await accepter.post(`/api/invitations/${acceptedLink.split('token=')[1]}/accept`)).status()).toBe(200);
  await page.goto(acceptedLink);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Invitation already accepted');
  await expect(page.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', `/auth?redirect=${encodeURIComponent(acceptedLink)}`);
  await accepter.dispose();
  await ownerSide.dispose();
});

test('screenshots of the guest pages', async ({ page, browser, baseURL, playwright }) => {
  test.skip(!process.env.SCREENSHOTS_DIR, 'Set SCREENSHOTS_DIR to take the guest screenshots');
  const owner = await registered(page.request, 'shotowner');
  await startTrial(page.request, 'professional');
  const first = await createStore(page.request, 'Northwind Outfitters');
  await createStore(page.request, 'Harbour Home Goods');
  await page.request.post('/api/guests/invitations', { data: { storeId: first.id, email: `${uniqueName('pending')}@example.com` } });
  const guestSide = await playwright.request.newContext({ baseURL, extraHTTPHeaders: distinctAddress() });
  const guestEmail = `${uniqueName('shotguest')}@example.com`;
  await page.request.post('/api/guests/invitations', { data: { storeId: first.id, email: guestEmail } });
  const link = invitationPathFor(guestEmail);
  await registered(guestSide, 'shotguest', guestEmail);
  await guestSide.post(`/api/invitations/${link.split('token=')[1]}/accept`);

  await page.goto('/guest-users');
  await screenshots(page, 'guest-users', (p) => expect(p.getByTestId('current-guests')).toBeVisible());
  await page.goto('/manage-users');
  await screenshots(page, 'manage-users', (p) => expect(p.getByRole('heading', { name: 'People with access' })).toBeVisible());

  const pendingEmail = `${uniqueName('invitee')}@example.com`;
  await page.request.post('/api/guests/invitations', { data: { storeId: first.id, email: pendingEmail } });
  const visitor = await otherPerson(browser, baseURL);
  await visitor.page.goto(invitationPathFor(pendingEmail));
  await screenshots(visitor.page, 'accept-invite-register', (p) => expect(p.getByRole('button', { name: 'Create account and accept' })).toBeVisible());
  await registered(visitor.page.request, 'wrongone');
  await screenshots(visitor.page, 'accept-invite-wrong-account', (p) => expect(p.getByRole('button', { name: 'Log out' })).toBeVisible());
  await visitor.page.goto('/accept-invite?token=unknown');
  await screenshots(visitor.page, 'accept-invite-not-found', (p) => expect(p.getByRole('heading', { name: 'Invitation not found' })).toBeVisible());
  await visitor.context.close();
  await guestSide.dispose();
  expect(owner.username).toBeTruthy();
});

test('the guest pages have no serious or critical accessibility violations, light and dark', async ({ page, browser, baseURL }) => {
  await registered(page.request, 'axeowner');
  await startTrial(page.request, 'professional');
  const store = await createStore(page.request, 'Axe Owner Shop');
  const invitee = `${uniqueName('axeinvitee')}@example.com`;
  await page.request.post('/api/guests/invitations', { data: { storeId: store.id, email: invitee } });
  const link = invitationPathFor(invitee);
  const visitor = await otherPerson(browser, baseURL);
  for (const theme of ['light', 'dark']) {
    await page.addInitScript((value) => window.localStorage.setItem('theme', value), theme);
    await visitor.page.addInitScript((value) => window.localStorage.setItem('theme', value), theme);
    // Each once its list has loaded (the pending invitations' heading and the people table come with their data).
    for (const [path, loaded] of [
      ['/guest-users', page.getByRole('heading', { name: 'Pending invitations' })],
      ['/manage-users', page.getByTestId('people-table')],
    ] as const) {
      await page.goto(path);
      await expect(loaded).toBeVisible();
      await nothingLoading(page);
      expect(await seriousViolations(page, 'main'), `${theme} ${path}`).toEqual([]);
    }
    await visitor.page.goto(link);
    await expect(visitor.page.getByRole('button', { name: 'Create account and accept' })).toBeVisible();
    expect(await seriousViolations(visitor.page), `${theme} accept-invite`).toEqual([]);
    await visitor.page.goto('/accept-invite?token=unknown');
    await expect(visitor.page.getByRole('heading', { name: 'Invitation not found' })).toBeVisible();
    expect(await seriousViolations(visitor.page), `${theme} accept-invite not found`).toEqual([]);
  }
  await visitor.context.close();
});
