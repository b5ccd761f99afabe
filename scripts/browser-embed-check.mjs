// A real browser (Debian's Chromium driven by playwright-core) checks the embeds: it signs in
// to the console, makes an API key and a publishable key limited to the origin of a partner's
// page, tracks a sandbox number, then opens that partner's page (plain HTML on another port,
// so another origin) with the map and the widget embedded: the map draws ports and legs on the
// land, the widget shows the container, and the page's own `window.L` survives. The same page
// on a third origin is refused. Finally the console's container page draws its route map and
// updates itself as the sandbox journey moves on.
// Run by scripts/browser-embed-check.sh.
import http from 'node:http';
import { chromium } from 'playwright-core';

const base = process.env.BASE_URL;
const shots = process.env.SCREENSHOTS || '.';
const fail = (m) => { console.error('FAIL: ' + m); process.exit(1); };
const ok = (c, m) => { if (!c) fail(m); console.log('ok: ' + m); };
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// the partner's page, on two ports of this process: the first is the allowed origin
let page_html = '';
const partner = () => new Promise((resolve) => {
  const s = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(page_html);
  });
  s.listen(0, '127.0.0.1', () => resolve({ server: s, origin: `http://127.0.0.1:${s.address().port}` }));
});
const allowed = await partner();
const other = await partner();

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  const errors = [];
  page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
  page.on('pageerror', (e) => errors.push(String(e)));
  await page.goto(`${base}/console/sign-in`);
  await page.getByLabel('Email').fill(process.env.USER_EMAIL);
  await page.getByLabel('Password').fill(process.env.USER_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/console/action`);
  await page.goto(`${base}/console`);
  await page.getByLabel('Name of a new key').fill('embed check');
  await page.getByRole('button', { name: 'Create a key', exact: true }).click();
  const key = (await page.locator('#new-key-value').textContent()).trim();
  await page.goto(`${base}/console`);
  await page.getByLabel('Name of a new publishable key').fill('partner site');
  await page.getByLabel(/Allowed origins/).fill(allowed.origin);
  await page.getByRole('button', { name: 'Create a publishable key' }).click();
  const pk = (await page.locator('#new-key-value').textContent()).trim();
  ok(pk.startsWith('btp_'), 'the portal makes a publishable key, shown once');
  await page.screenshot({ path: `${shots}/embed-portal.png`, fullPage: true });

  // a sandbox shipment to show
  const api = (path, init = {}) => fetch(`${base}${path}`, { ...init, headers: { authorization: `Token ${key}`, 'content-type': 'application/vnd.api+json', ...(init.headers || {}) } });
  const created = await api('/v2/tracking_requests', { method: 'POST', body: JSON.stringify({ data: { type: 'tracking_request', attributes: { request_number: 'TEST-SCN-IMPORT', request_type: 'bill_of_lading', scac: 'TEST' } } }) });
  ok(created.status === 201, 'a sandbox number is tracked');
  let container = null;
  for (let i = 0; i < 100 && !container; i++) {
    const list = await (await api('/v2/containers')).json();
    container = list.data && list.data[0];
    if (!container) await sleep(200);
  }
  ok(container, 'its container appears');
  const number = container.attributes.number;
  const shipmentId = container.relationships.shipment.data.id;
  ok(await (await fetch(`${base}/v2/shipping_lines`, { headers: { authorization: `Token ${pk}` } })).status === 401, 'the publishable key reads nothing of /v2');

  page_html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Partner shop</title>
<link rel="stylesheet" href="${base}/embed/map.css"></head><body>
<h1>Where is my order?</h1>
<div id="map"></div>
<h2>Track</h2>
<div id="terminal49-tnt-widget" data-token="${pk}" data-number="${number}"></div>
<script>window.L = { host: 'mine' };</script>
<script src="${base}/embed/map.js"></script>
<script src="${base}/embed/widget.js"></script>
<script>
(async () => {
  const map = new window.TntMap('#map', { authToken: '${pk}' });
  await map.start();
  await map.load('${shipmentId}', '${container.id}');
})().catch((e) => { window.mapError = String(e); });
</script></body></html>`;

  const partnerPage = await browser.newPage({ viewport: { width: 1100, height: 1000 } });
  const partnerErrors = [];
  partnerPage.on('console', (m) => { if (m.type() === 'error') partnerErrors.push(m.text()); });
  partnerPage.on('pageerror', (e) => partnerErrors.push(String(e)));
  await partnerPage.goto(allowed.origin);
  const map = partnerPage.locator('#map');
  await partnerPage.waitForFunction(() => ['ready', 'error'].includes(document.querySelector('#map')?.getAttribute('data-state')), null, { timeout: 20000 });
  ok(await map.getAttribute('data-state') === 'ready', `the embedded map loads (${await partnerPage.evaluate(() => window.mapError || '')})`);
  const ports = Number(await map.getAttribute('data-ports'));
  ok(ports >= 2, `the map draws the ports (${ports})`);
  const legs = await partnerPage.locator('#map .leaflet-overlay-pane path').count();
  ok(legs >= 1, `the legs as paths (${legs})`);
  const land = await partnerPage.locator('#map .leaflet-tntmLand-pane path').count();
  ok(land >= 1, `on the land (${land} paths)`);
  ok(await map.locator('[data-journey-state]').count() >= 2, 'ports carry their journey state for styling');
  ok(await partnerPage.evaluate(() => window.L && window.L.host === 'mine'), "the page's own window.L survives");
  const widget = partnerPage.locator('#terminal49-tnt-widget');
  await partnerPage.waitForFunction(() => ['ready', 'empty', 'error'].includes(document.querySelector('#terminal49-tnt-widget')?.getAttribute('data-state')), null, { timeout: 20000 });
  ok(await widget.getAttribute('data-state') === 'ready', 'the widget shows what data-number names');
  ok((await widget.textContent()).includes(number), 'with the container number');
  // a visitor searches: a number of another account, or half a number, finds nothing
  await widget.getByLabel(/Bill of lading, container or reference number/).fill(number.slice(0, 6));
  await widget.getByRole('button').first().click();
  await partnerPage.waitForFunction(() => document.querySelector('#terminal49-tnt-widget')?.getAttribute('data-state') === 'empty', null, { timeout: 10000 });
  ok(true, 'part of a number finds nothing');
  await widget.getByLabel(/Bill of lading, container or reference number/).fill(number);
  await widget.getByRole('button').first().click();
  await partnerPage.waitForFunction(() => document.querySelector('#terminal49-tnt-widget')?.getAttribute('data-state') === 'ready', null, { timeout: 10000 });
  await partnerPage.screenshot({ path: `${shots}/embed-partner.png`, fullPage: true });
  ok(partnerErrors.length === 0, `no errors on the partner's page (${partnerErrors.join('; ')})`);

  // the same page on an origin the key does not list: refused
  const refusedPage = await browser.newPage();
  await refusedPage.goto(other.origin);
  await refusedPage.waitForFunction(() => document.querySelector('#map')?.getAttribute('data-state') === 'error', null, { timeout: 20000 });
  ok(await refusedPage.locator('#map').getAttribute('data-error-status') === '403', 'another origin gets 403 on the map');
  await refusedPage.waitForFunction(() => document.querySelector('#terminal49-tnt-widget')?.getAttribute('data-state') === 'error', null, { timeout: 20000 });
  ok(true, 'and on the widget');

  // the console's container page draws the same journey with the session
  await page.goto(`${base}/console/containers/${container.id}`);
  const consoleMap = page.locator('#route-map');
  await page.waitForFunction(() => ['ready', 'error'].includes(document.querySelector('#route-map')?.getAttribute('data-state')), null, { timeout: 20000 })
    .catch(async () => fail(`the container page's map did not draw (${errors.join('; ')}) ${(await page.content()).slice(-1500)}`));
  ok(await consoleMap.getAttribute('data-state') === 'ready', `the container page's map loads (${errors.join('; ')}; ${await consoleMap.textContent()})`);
  ok(Number(await consoleMap.getAttribute('data-ports')) >= 2, 'the container page draws its route map');
  // watching it move: the sandbox journey plays on (an hour a second); the page updates itself
  const rowsBefore = await page.locator('#container-live tbody tr').count();
  await page.waitForFunction((n) => document.querySelectorAll('#container-live tbody tr').length > n, rowsBefore, { timeout: 120000 })
    .catch(() => fail(`the container page did not update itself as the journey moved (${rowsBefore} events)`));
  const rowsAfter = await page.locator('#container-live tbody tr').count();
  ok((await page.locator('#live-status').textContent()).startsWith('Updated'), `the container page updates itself as the container moves (${rowsBefore} → ${rowsAfter} events)`);
  await page.screenshot({ path: `${shots}/embed-console-container.png`, fullPage: true });
  ok(errors.length === 0, `no console errors (${errors.join('; ')})`);
} finally {
  await browser.close();
  allowed.server.close();
  other.server.close();
}
console.log(`screenshots: ${shots}/embed-portal.png, ${shots}/embed-partner.png, ${shots}/embed-console-container.png`);
