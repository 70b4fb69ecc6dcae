import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Runtime } from '../../core/runtime/server';
import { type Browser, openBrowser } from '../support/browser';
import { type TestEngine, testEngine } from '../support/engine';
import { listen } from '../support/http';

/** A page on another origin (localhost on another port) that tries three cross-site posts at once. */
function attackerPage(target: string): string {
  const action = `${target}/api/v1/setup/demo/`;
  return `<!doctype html><title>evil</title>
<iframe name="a"></iframe><iframe name="b"></iframe>
<form id="plain" method="post" enctype="text/plain" action="${action}" target="a"><input name='{"x":"' value='"}'></form>
<form id="urlencoded" method="post" action="${action}" target="b"><input name="x" value="1"></form>
<script>
document.getElementById('plain').submit();
document.getElementById('urlencoded').submit();
fetch(${JSON.stringify(action)}, { method: 'POST', mode: 'no-cors' });
fetch(${JSON.stringify(action)}, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{}' });
</script>`;
}

describe('cross-site posts from Chromium', () => {
  let engine: TestEngine;
  let server: Runtime;
  let attacker: Server;
  let attackerUrl: string;
  let browser: Browser;

  beforeAll(async () => {
    engine = await testEngine();
    server = await listen(engine);
    attacker = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end(attackerPage(server.url)));
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://localhost:${(attacker.address() as AddressInfo).port}/`;
    browser = await openBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => attacker.close(resolve));
    await server.stop();
    await engine.dispose();
  });

  it('cannot set up the empty workspace with a form post or a no-cors fetch', async () => {
    const answered: number[] = [];
    browser.page.on('response', (res) => {
      if (res.url().endsWith('/api/v1/setup/demo/')) answered.push(res.status());
    });
    await browser.page.goto(attackerUrl);
    await expect.poll(() => answered.length, { timeout: 10_000 }).toBe(4);
    // no-cors responses are opaque to the page (status 0 here); the forms show the real 403.
    expect(answered.filter((s) => s !== 0 && s !== 403)).toEqual([]);
    expect(answered.filter((s) => s === 403).length).toBeGreaterThanOrEqual(2);
    const users = await engine.db.selectFrom('users').select('id').execute();
    expect(users).toEqual([]);
    const changes = await engine.db.selectFrom('changes').select('seq').execute();
    expect(changes).toEqual([]);
  });
});
