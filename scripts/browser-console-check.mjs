// A real browser (Debian's Chromium driven by playwright-core) goes through the web console:
// the portal sends it to sign in, a wrong password shows its error, the right one opens the
// portal; it creates an API key (shown once), uses it, sees it masked afterwards, revokes it
// (the key stops working), opens the API reference (Redoc, vendored), and signs out. Keeps screenshots of the pages. Run by
// scripts/browser-console-check.sh.
import http from 'node:http';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

const base = process.env.BASE_URL;
const email = process.env.USER_EMAIL;
const password = process.env.USER_PASSWORD;
const shots = process.env.SCREENSHOTS || '.';
const fail = (m) => { console.error('FAIL: ' + m); process.exit(1); };
const ok = (c, m) => { if (!c) fail(m); console.log('ok: ' + m); };
const v2 = async (key) => (await fetch(`${base}/v2/shipping_lines`, { headers: { authorization: `Token ${key}` } })).status;

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 1000, height: 800 } });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('response', (r) => { if (r.status() >= 400) console.log(`answer ${r.status()} for ${r.url()}`); });
  page.on('requestfailed', (r) => console.log(`request failed: ${r.url()}`));
  await page.goto(`${base}/console`);
  ok(new URL(page.url()).pathname === '/console/sign-in', 'the portal sends a visitor without a session to sign in');
  ok(await page.getByRole('heading', { name: 'Sign in to boxtrack' }).isVisible(), 'the sign-in page renders');
  await page.screenshot({ path: `${shots}/console-sign-in.png`, fullPage: true });
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  ok(await page.locator('#sign-in-error').isVisible(), 'a wrong password shows an error');
  ok((await page.getByLabel('Password').getAttribute('aria-describedby')) === 'sign-in-error', 'the error is tied to the fields');
  // that answer is a 400 on purpose, which Chromium logs as a failed load: count from here
  ok(errors.length <= 1 && errors.every((e) => e.includes('400')), 'only the refused sign-in logged');
  errors.length = 0;
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  // a dispatcher lands on what needs action, and the account page is one click away
  await page.waitForURL(`${base}/console/action`);
  ok(await page.getByRole('heading', { name: 'Needs action' }).isVisible(), 'signed in: the page of what needs action');
  ok(await page.getByRole('heading', { name: /On hold/ }).isVisible(), 'with the boxes on hold');
  await page.screenshot({ path: `${shots}/console-action.png`, fullPage: true });
  await page.getByRole('link', { name: 'Account' }).click();
  await page.waitForURL(`${base}/console`);
  ok(await page.getByRole('heading', { name: 'API keys' }).isVisible(), 'the portal shows the keys');
  ok(await page.getByRole('heading', { name: 'Plan' }).isVisible(), 'and the plan');
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === 'btk_console');
  ok(session && session.httpOnly && session.sameSite === 'Strict', 'the session cookie is HttpOnly and SameSite=Strict');

  await page.getByLabel('Name of a new key').fill('browser check');
  await page.getByRole('button', { name: 'Create a key' }).click();
  const shown = page.locator('#new-key-value');
  ok(await shown.isVisible(), 'the new key is shown');
  const key = (await shown.textContent()).trim();
  await page.screenshot({ path: `${shots}/console-portal.png`, fullPage: true });
  ok(await v2(key) === 200, 'the new key reads /v2');
  await page.goto(`${base}/console`);
  ok(!(await page.content()).includes(key), 'afterwards the key is shown masked only');
  const row = page.getByRole('row').filter({ hasText: 'browser check' });
  await row.getByRole('button', { name: /Revoke key/ }).click();
  await page.waitForURL(`${base}/console`);
  ok(await page.getByRole('row').filter({ hasText: 'browser check' }).getByText('revoked').isVisible(), 'the key is listed as revoked');
  ok(await v2(key) === 401, 'the revoked key no longer reads /v2');
  // the containers table with its filters
  await page.getByRole('link', { name: 'Containers' }).click();
  await page.waitForURL(`${base}/console/containers`);
  ok(await page.getByRole('heading', { name: 'Containers' }).isVisible(), 'the containers table renders');
  await page.getByLabel('Status').selectOption('available');
  await page.getByRole('button', { name: 'Filter' }).click();
  await page.waitForURL(/status=available/);
  ok(await page.locator('#containers-live').textContent().then((t) => t.includes('0 containers')), 'and filters');
  // tracking a sandbox number from the console
  await page.getByRole('link', { name: 'Tracking requests' }).click();
  await page.waitForURL(`${base}/console/tracking_requests`);
  await page.getByLabel('Number', { exact: true }).fill('TEST-SCN-IMPORT');
  await page.getByLabel(/Carrier SCAC/).fill('TEST');
  await page.getByRole('button', { name: 'Track' }).click();
  await page.waitForURL(`${base}/console/tracking_requests`);
  ok(await page.getByRole('row').filter({ hasText: 'TEST-SCN-IMPORT' }).isVisible(), 'a sandbox number is tracked from the console');
  // two more journeys, for a table with more than one state in it
  for (const number of ['TEST-SCN-HOLDS', 'TEST-SCN-RAIL']) {
    await page.getByLabel('Number', { exact: true }).fill(number);
    await page.getByLabel(/Carrier SCAC/).fill('TEST');
    await page.getByRole('button', { name: 'Track' }).click();
    await page.waitForURL(`${base}/console/tracking_requests`);
  }
  await page.screenshot({ path: `${shots}/console-tracking-requests.png`, fullPage: true });
  // bulk import: a CSV file chosen in the page, checked row by row, tracked with a progress bar
  await page.goto(`${base}/console/imports`);
  await page.getByLabel('CSV or XLSX file').setInputFiles({ name: 'numbers.csv', mimeType: 'text/csv', buffer: Buffer.from('number,scac\nMSCU1234566,MSCU\nMSCU1234567,MSCU\nCMAU1234564,CMDU\n') });
  await page.waitForFunction(() => document.getElementById('import-csv').value.includes('CMAU1234564'));
  ok(true, 'a chosen CSV file is read into the form');
  await page.getByRole('button', { name: 'Check the rows' }).click();
  await page.waitForURL(`${base}/console/imports/preview`);
  ok((await page.locator('#import-summary').textContent()).includes('2 of 3 rows can be tracked; 1 refused.'), 'the preview checks every row and says why one is refused');
  await page.screenshot({ path: `${shots}/console-import.png`, fullPage: true });
  await page.getByRole('button', { name: 'Track 2 rows' }).click();
  await page.waitForFunction(() => document.getElementById('run-form')?.getAttribute('data-state') === 'done', null, { timeout: 20000 });
  ok(await page.locator('#import-progress').evaluate((p) => p.value === p.max), 'the progress bar fills');
  ok((await page.locator('#import-progress-text').textContent()).includes('2 tracked'), 'and says what was tracked');
  // the same from an XLSX workbook: its first sheet is read on the server
  await page.goto(`${base}/console/imports`);
  await page.getByLabel('CSV or XLSX file').setInputFiles(`${process.cwd()}/crates/web/tests/fixtures/import.xlsx`);
  await page.waitForFunction(() => document.getElementById('import-xlsx').value.length > 100);
  ok(await page.locator('#import-file-note').isVisible(), 'a chosen workbook is announced');
  await page.getByRole('button', { name: 'Check the rows' }).click();
  await page.waitForURL(`${base}/console/imports/preview`);
  ok((await page.locator('#import-summary').textContent()).includes('2 of 4 rows can be tracked; 2 refused.'), 'a workbook\'s rows are checked as a CSV file\'s are');
  // sorting by a column header, then the export of what is shown
  await page.goto(`${base}/console/containers`);
  await page.getByRole('link', { name: 'Last free day' }).click();
  await page.waitForURL(/sort=pickup_lfd/);
  ok((await page.locator('th[aria-sort="ascending"]').textContent()).includes('Last free day'), 'a column header sorts the table and says so');
  await page.goto(`${base}/console/shipments`);
  const [shipped] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export these shipments as CSV' }).click()]);
  const shippedCsv = await (await import('node:fs/promises')).readFile(await shipped.path(), 'utf8');
  ok(shippedCsv.startsWith('bill_of_lading,scac'), 'the shipments table exports as CSV');
  // export the containers table as CSV
  await page.goto(`${base}/console/containers`);
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export these containers as CSV' }).click()]);
  const fs = await import('node:fs/promises');
  const exported = await fs.readFile(await download.path(), 'utf8');
  ok(exported.startsWith('number,status,ready_for_pickup'), 'the containers table exports as CSV');
  // a webhook made in the console and tested against a real receiver
  let received = 0;
  const receiver = http.createServer((req, res) => { received += 1; req.resume(); res.writeHead(204); res.end(); });
  await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
  await page.goto(`${base}/console/webhooks`);
  await page.getByLabel('URL (https)').fill(`http://127.0.0.1:${receiver.address().port}/hook`);
  await page.getByRole('button', { name: 'Create the webhook' }).click();
  await page.waitForURL(/\/console\/webhooks\/[0-9a-f-]+$/);
  await page.getByRole('button', { name: 'Send a test delivery' }).click();
  await page.locator('#test-result').waitFor();
  // (the sandbox journeys' own notifications may reach the receiver too)
  ok((await page.locator('#test-result').textContent()).includes('Delivered: HTTP 204') && received >= 1, 'a webhook test reaches its receiver');
  await page.screenshot({ path: `${shots}/console-webhook.png`, fullPage: true });
  receiver.close();
  await page.getByRole('link', { name: 'Sources' }).click();
  await page.waitForURL(`${base}/console/sources`);
  ok(await page.getByRole('heading', { name: 'Sources' }).isVisible(), 'the sources page renders');
  await page.getByRole('link', { name: 'Account' }).click();
  await page.waitForURL(`${base}/console`);
  // the API reference: the served document rendered by the vendored Redoc, offline
  await page.getByRole('link', { name: 'API reference' }).click();
  await page.waitForURL(`${base}/console/reference`);
  const op = page.getByRole('heading', { name: 'Get a container' }).first();
  await op.waitFor({ state: 'visible', timeout: 20000 });
  ok(await op.isVisible(), 'the API reference renders the operations');
  ok(await page.getByText('current_status').first().isVisible(), 'with their fields');
  await page.screenshot({ path: `${shots}/console-reference.png` });
  // the look: the main pages at desktop and phone widths, light and dark, and axe-core's
  // accessibility rules on each (no serious or critical violation)
  // (the held import, by now discharged at its terminal with holds, fees and a last free day)
  // (for the photographs only: wait up to 40 s for its holds, then go on whatever it shows)
  for (let i = 0; i < 40; i += 1) {
    await page.goto(`${base}/console/containers?q=TEST-SCN-HOLDS`);
    if ((await page.locator('#containers-live').textContent()).includes('On hold')) break;
    await page.waitForTimeout(1000);
  }
  const first = page.locator('#containers-live tbody a').first();
  await first.waitFor({ timeout: 20000 });
  const containerPath = new URL(await first.getAttribute('href'), base).pathname;
  ok(await page.locator('#containers-live .badge').first().isVisible(), 'the containers table shows statuses as badges');
  const looks = new Map([
    ['containers', '/console/containers'],
    ['container', containerPath],
    ['shipments', '/console/shipments'],
    ['tracking-requests', '/console/tracking_requests'],
    ['charges', '/console/charges'],
    ['charges-audit', '/console/charges/audit'],
    ['portal', '/console'],
  ]);
  const audit = await browser.newContext({ bypassCSP: true, storageState: await page.context().storageState() });
  for (const [name, path] of looks) {
    for (const [tag, width, height] of [['desktop', 1280, 900], ['phone', 390, 844]]) {
      for (const scheme of ['light', 'dark']) {
        const p = await audit.newPage();
        await p.setViewportSize({ width, height });
        await p.emulateMedia({ colorScheme: scheme });
        await p.goto(`${base}${path}`);
        await p.screenshot({ path: `${shots}/look-${name}-${tag}-${scheme}.png`, fullPage: true });
        if (tag === 'desktop') {
          await p.addScriptTag({ path: axePath });
          const found = await p.evaluate(async () => await window.axe.run(document, { resultTypes: ['violations'] }));
          const bad = found.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
          ok(bad.length === 0, `axe-core: no serious violation on ${name} (${scheme})${bad.map((v) => ` [${v.id}: ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}]`).join('')}`);
        }
        await p.close();
      }
    }
  }
  await audit.close();
  await page.goto(`${base}/console`);
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${base}/console/sign-in`);
  await page.goto(`${base}/console`);
  ok(new URL(page.url()).pathname === '/console/sign-in', 'signed out: the portal asks to sign in again');
  ok(errors.length === 0, `no console errors (${errors.join('; ')})`);
} finally {
  await browser.close();
}
console.log(`screenshots: ${shots}/console-*.png and ${shots}/look-*.png`);
