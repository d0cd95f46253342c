// `roundtable-bridge setup claude-code` run from this checkout (issue 31, item 1), in the real Claude Code: the entry
// setup wrote (this Node.js by its full path and the checkout's script, no npx) is started by Claude Code, with no
// node of its own on PATH first, and answers whoami when the stand-in model calls it. The token comes from
// ROUNDTABLE_TOKEN, which Claude Code passes to the server, so no keyring is needed. Skipped without scripts/install-apps.sh.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appsProblem, nodeDir, REQUIRE_APPS_FLAG, runApp } from '../helpers/apps.js';
import { startBoard, type TestBoard } from '../helpers/board.js';
import { BRIDGE_BIN } from '../helpers/bridge.js';
import { requireOrSkip } from '../helpers/keychain.js';
import { boardToolOf, modelApis, type ModelApis, type Script } from '../helpers/model-apis.js';

let problem: string | undefined;
let board: TestBoard;
let model: ModelApis;
let home: string;

const whoamiOnce: Script = (turn) => (turn.calls.some((c) => c.tool === 'whoami') ? { say: 'Done.' } : { call: 'whoami' });

beforeAll(async () => {
  problem = appsProblem(['@anthropic-ai/claude-code', 'node22']);
  if (problem) {
    if (process.env[REQUIRE_APPS_FLAG] !== '1') console.warn(`the real Claude Code test of setup from a checkout is skipped: ${problem}`);
    return;
  }
  board = await startBoard();
  model = await modelApis();
  model.script('claude-checkout', whoamiOnce);
  home = mkdtempSync(join(tmpdir(), 'roundtable-apps-checkout-'));
}, 60_000);

afterAll(async () => {
  await model?.close();
  await board?.stop();
  if (home) rmSync(home, { recursive: true, force: true });
});

describe('setup claude-code from the checkout, in the real Claude Code', () => {
  requireOrSkip(() => problem, REQUIRE_APPS_FLAG);

  it('writes an entry Claude Code starts, and whoami answers through it', async () => {
    const project = join(home, 'project');
    mkdirSync(project);
    const env = { HOME: home, PATH: `${nodeDir(22)}:${process.env['PATH'] ?? '/usr/bin:/bin'}`, LANG: 'C.UTF-8', TERM: 'dumb', SHELL: '/bin/sh', ROUNDTABLE_TOKEN: board.tokens['w1']! };
    const setup = await new Promise<{ code: number; out: string }>((resolve) =>
      execFile(process.execPath, [BRIDGE_BIN, 'setup', 'claude-code', '--url', board.url], { env, cwd: home, timeout: 60_000 }, (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out: stdout + stderr }),
      ),
    );
    expect(setup.code, setup.out).toBe(0);
    expect(JSON.parse(readFileSync(join(home, '.claude.json'), 'utf8')).mcpServers.roundtable.command).toBe(process.execPath);

    const result = await runApp({
      app: 'claude',
      args: ['-p', 'Who am I on the Roundtable board?', '--output-format', 'json', '--allowedTools', 'mcp__roundtable'],
      env: { ...env, ANTHROPIC_BASE_URL: model.baseFor('claude-checkout'), ANTHROPIC_API_KEY: 'sk-stand-in', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' },
      cwd: project,
    });
    expect(result.code, result.stderr + result.stdout.slice(-2000)).toBe(0);
    const calls = model.turnsOf('claude-checkout').flatMap((turn) => turn.conversation.calls);
    const whoami = calls.find((call) => boardToolOf(call.name) === 'whoami');
    expect(whoami?.resultText, JSON.stringify(calls).slice(0, 2000)).toMatch(/"name":\s*"w1"[\s\S]*"role":\s*"worker"/);
  }, 180_000);
});
