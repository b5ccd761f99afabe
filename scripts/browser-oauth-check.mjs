// A real browser (Debian's Chromium driven by playwright-core) goes through boxtrack's OAuth
// sign-in for MCP: discovery, dynamic registration, the sign-in page (a wrong password first,
// whose error must show next to the field), consent, the code at a loopback redirect URI, the
// PKCE token exchange, and a tool call with the bearer token. Keeps a screenshot of the page.
// Run by scripts/browser-oauth-check.sh.
import { chromium } from 'playwright-core';
import http from 'node:http';
import crypto from 'node:crypto';

const base = process.env.BASE_URL;
const email = process.env.USER_EMAIL;
const password = process.env.USER_PASSWORD;
const shot = process.env.SCREENSHOT || 'oauth-signin.png';
const fail = (m) => { console.error('FAIL: ' + m); process.exit(1); };
const ok = (c, m) => { if (!c) fail(m); console.log('ok: ' + m); };
const b64url = (buf) => buf.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

let resolveCode;
const codeArrived = new Promise((r) => { resolveCode = r; });
const receiver = http.createServer((req, res) => {
  const u = new URL(req.url, 'http://127.0.0.1');
  res.writeHead(200, { 'content-type': 'text/plain' });
  res.end('signed in; you can close this window');
  resolveCode(u.searchParams);
});
await new Promise((r) => receiver.listen(0, '127.0.0.1', r));
const redirectUri = `http://127.0.0.1:${receiver.address().port}/callback`;

// discovery as an MCP client does it: 401 -> resource metadata -> authorization server
const unauth = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
ok(unauth.status === 401, 'POST /mcp without credentials is 401');
const www = unauth.headers.get('www-authenticate') || '';
const prmUrl = (www.match(/resource_metadata="([^"]+)"/) || [])[1];
ok(prmUrl, 'WWW-Authenticate names the resource metadata');
const prm = await (await fetch(prmUrl)).json();
const asm = await (await fetch(`${prm.authorization_servers[0]}/.well-known/oauth-authorization-server`)).json();
ok(asm.code_challenge_methods_supported.includes('S256'), 'the authorization server offers PKCE S256');
const reg = await (await fetch(asm.registration_endpoint, {
  method: 'POST', headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ redirect_uris: [redirectUri], client_name: 'Browser check' }),
})).json();
ok(reg.client_id, 'dynamic client registration');

const verifier = b64url(crypto.randomBytes(32));
const challenge = b64url(crypto.createHash('sha256').update(verifier).digest());
const state = b64url(crypto.randomBytes(12));
const authorize = new URL(asm.authorization_endpoint);
for (const [k, v] of Object.entries({ response_type: 'code', client_id: reg.client_id, redirect_uri: redirectUri,
  code_challenge: challenge, code_challenge_method: 'S256', state, resource: prm.resource })) authorize.searchParams.set(k, v);

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  const page = await browser.newPage();
  await page.goto(authorize.toString());
  ok(await page.getByRole('heading', { name: 'Sign in to boxtrack' }).isVisible(), 'the sign-in page renders');
  await page.screenshot({ path: shot, fullPage: true });
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill('not the password');
  await page.getByRole('button', { name: 'Sign in and allow' }).click();
  const err = page.locator('#password-error');
  ok(await err.isVisible(), 'a wrong password shows an error next to the field');
  ok((await page.getByLabel('Password').getAttribute('aria-describedby')) === 'password-error', 'the error is tied to the field');
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in and allow' }).click();
  const params = await codeArrived;
  ok(params.get('state') === state, 'the code comes back with the state');
  const code = params.get('code');
  ok(code, 'an authorization code');
  const token = await (await fetch(asm.token_endpoint, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri,
      client_id: reg.client_id, code_verifier: verifier, resource: prm.resource }),
  })).json();
  ok(token.access_token && token.refresh_token, 'tokens for the code and verifier');
  const call = await (await fetch(prm.resource, {
    method: 'POST',
    headers: { authorization: `Bearer ${token.access_token}`, 'content-type': 'application/json',
      accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-06-18' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_supported_shipping_lines', arguments: { search: 'maersk' } } }),
  })).json();
  ok(call.result && call.result.isError === false, 'a tool call with the bearer token');
  ok(call.result.structuredContent.shipping_lines.some((l) => l.scac === 'MAEU'), 'the tool answered');
} finally {
  await browser.close();
  receiver.close();
}
console.log(`screenshot: ${shot}`);
