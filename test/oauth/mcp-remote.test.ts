// mcp-remote (a dev dependency, the stdio-to-HTTP proxy many apps launch) signs in to /p/web/mcp with OAuth (issue 34):
// it finds the authorization server from the 401, registers itself (dynamic registration on), and hands the
// authorization URL to $BROWSER, here a script that writes it down; the test opens it in headless Chromium, the person
// signs in and grants an existing agent, and mcp-remote's own callback listener takes the code. The MCP SDK client on
// the other side of the proxy then calls whoami as that agent. Both stores.
import { createHash } from 'node:crypto';
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, resultJson, startBoard, token, type TestBoard } from '../helpers/board.js';
import { CHROMIUM_ARGS, consentInBrowser } from '../helpers/oauth.js';
import { describeEachStore } from '../helpers/stores.js';

const CHROMIUM = '/usr/bin/chromium';
const HAVE_BROWSER = existsSync(CHROMIUM) || process.env['ROUNDTABLE_REQUIRE_BROWSER'] === '1';
const MCP_REMOTE = join(ROOT, 'node_modules/.bin/mcp-remote');
const sha = (value: string) => createHash('sha256').update(value).digest('hex');

describe.skipIf(!HAVE_BROWSER)('mcp-remote signs in with OAuth', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  });
  afterAll(async () => {
    await browser?.close();
  });

  describeEachStore((store) => {
    let board: TestBoard;
    let dir: string;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'rt-mcp-remote-'));
      const tokens = { 'web-lead': token(), olive: token() };
      writeFileSync(
        join(dir, 'agents.json'),
        JSON.stringify({
          projects: [
            { slug: 'default', mode: 'role', agents: [] },
            { slug: 'web', mode: 'role', agents: [{ name: 'web-lead', role: 'leader', skills: [], token_sha256: sha(tokens['web-lead']) }] },
          ],
          people: [{ name: 'olive', token_sha256: sha(tokens.olive), grants: { web: 'owner' } }],
        }),
        { mode: 0o600 },
      );
      board = await startBoard({ store, dir, tokens, env: { ROUNDTABLE_OAUTH_REGISTRATION: '1' } });
    });
    afterAll(async () => {
      await board?.stop();
    });

    it('registers, takes the code on its own listener, and its client calls tools as the agent granted', async () => {
      const opened = join(dir, 'opened.txt');
      const browserScript = join(dir, 'browser.sh');
      writeFileSync(browserScript, `#!/bin/sh\nprintf '%s\\n' "$1" >> '${opened}'\n`);
      chmodSync(browserScript, 0o755);
      const home = mkdtempSync(join(tmpdir(), 'rt-mcp-remote-home-'));
      const transport = new StdioClientTransport({
        command: MCP_REMOTE,
        args: [`${board.url}/p/web/mcp`, '--host', '127.0.0.1'],
        env: { HOME: home, MCP_REMOTE_CONFIG_DIR: join(home, '.mcp-auth'), PATH: process.env['PATH'] ?? '/usr/bin:/bin', BROWSER: browserScript },
        stderr: 'pipe',
      });
      let stderr = '';
      transport.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
      const client = new Client({ name: 'mcp-remote-oauth-test', version: '1.0.0' });
      const connected = client.connect(transport);
      // The authorization URL arrives at the "browser"; the person consents in Chromium.
      const deadline = Date.now() + 30_000;
      while (!existsSync(opened) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(existsSync(opened), stderr).toBe(true);
      const url = readFileSync(opened, 'utf8').trim().split('\n')[0]!;
      const asked = new URL(url).searchParams;
      expect(asked.get('resource')).toBe(`${board.url}/p/web/mcp`);
      await consentInBrowser(browser, url, asked.get('redirect_uri')!, { token: board.tokens['olive']!, agent: 'web-lead' });
      await connected;
      try {
        expect(resultJson(await client.callTool({ name: 'whoami', arguments: {} }))).toMatchObject({ name: 'web-lead', role: 'leader' });
      } finally {
        await client.close();
      }
    }, 90_000);
  });
});
