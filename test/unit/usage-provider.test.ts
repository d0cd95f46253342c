// The usage provider (issue 35) over session files the test writes: what each submit_result or post_message adds is
// the model use since the last report, from the claim on; a restarted bridge goes on from its ledger; off is off.
import { appendFileSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { usageProvider } from '../../bridge/src/usage/provider.js';
import { claudeProjectFolder } from '../../bridge/src/usage/claude-transcript.js';
import { noteTranscript } from '../../bridge/src/usage/transcript-note.js';
import { claudeAnswerLine, codexTokenCountLine } from '../helpers/usage-lines.js';

function place() {
  const root = mkdtempSync(join(tmpdir(), 'usage-provider-'));
  const cwd = join(root, 'my.project');
  const home = join(root, 'home');
  const stateDir = join(root, 'state');
  mkdirSync(cwd, { recursive: true });
  return { root, cwd, home, stateDir, env: {} as NodeJS.ProcessEnv };
}

const answer = (n: number) => ({ input: 100 * n, output: 10 * n, cacheRead: 1000 * n, cacheWrite: n });

/** What a call goes out with after the provider's before, and the board's answer through after. */
async function call(provider: ReturnType<typeof usageProvider>, tool: string, args: Record<string, unknown> = {}, accepted = true) {
  const added = (await provider.before?.(tool, args)) ?? {};
  const sent = { ...added, ...args };
  if (accepted) await provider.after?.(tool, sent, {});
  return sent['usage'];
}

function claudeTranscript(p: ReturnType<typeof place>, session = 'session-1'): string {
  const folder = claudeProjectFolder(p.cwd, p.env, p.home);
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${session}.jsonl`);
  writeFileSync(file, `${JSON.stringify({ type: 'queue-operation', operation: 'enqueue' })}\n`);
  return file;
}

it('Claude Code: from the claim on, each report carries what came after the last; a refused call leaves it unreported', async () => {
  const p = place();
  const file = claudeTranscript(p);
  const provider = usageProvider(p);
  appendFileSync(file, `${claudeAnswerLine('m1', answer(1))}\n${claudeAnswerLine('m1', answer(1), 'tool_use')}\n`);
  await call(provider, 'claim_task');
  appendFileSync(file, `${claudeAnswerLine('m2', answer(2))}\n${claudeAnswerLine('m2', answer(2), 'tool_use')}\n`);
  expect(await call(provider, 'post_message')).toEqual({ input_tokens: 202, output_tokens: 20, cached_tokens: 2000, model: 'claude-opus-5-5' });
  appendFileSync(file, `${claudeAnswerLine('m3', answer(3))}\n`);
  // Refused by the board (no after): the next call carries it again, with what came since.
  expect(await call(provider, 'submit_result', {}, false)).toEqual({ input_tokens: 303, output_tokens: 30, cached_tokens: 3000, model: 'claude-opus-5-5' });
  appendFileSync(file, `${claudeAnswerLine('m3', answer(3), 'tool_use')}\n${claudeAnswerLine('m4', answer(4))}\n`);
  // ...once the in-flight report is known refused: here, a new provider (a restarted bridge) never saw it sent.
  const restarted = usageProvider(p);
  expect(await call(restarted, 'submit_result')).toEqual({ input_tokens: 707, output_tokens: 70, cached_tokens: 7000, model: 'claude-opus-5-5' });
  // Nothing new: nothing added, no error. A restarted bridge does not report the same tokens again.
  expect(await call(restarted, 'post_message')).toBeUndefined();
  expect(await call(usageProvider(p), 'post_message')).toBeUndefined();
  // A torn last line waits until it is whole.
  const line = claudeAnswerLine('m5', answer(5));
  appendFileSync(file, line.slice(0, 40));
  expect(await call(usageProvider(p), 'post_message')).toBeUndefined();
  appendFileSync(file, `${line.slice(40)}\n`);
  expect(await call(usageProvider(p), 'post_message')).toMatchObject({ input_tokens: 505, output_tokens: 50 });
});

it('without a claim seen, the first report is the whole session; other tools add nothing; usage the app sent is kept', async () => {
  const p = place();
  const file = claudeTranscript(p);
  appendFileSync(file, `${claudeAnswerLine('m1', answer(1))}\n${claudeAnswerLine('m2', answer(2))}\n`);
  const provider = usageProvider(p);
  expect(await provider.before?.('get_task', {})).toBeUndefined();
  const own = { input_tokens: 1 };
  expect(await call(provider, 'submit_result', { usage: own })).toBe(own);
  expect(await call(provider, 'submit_result')).toMatchObject({ input_tokens: 303, output_tokens: 30, cached_tokens: 3000 });
});

it('two reports at once do not carry the same tokens', async () => {
  const p = place();
  const file = claudeTranscript(p);
  appendFileSync(file, `${claudeAnswerLine('m1', answer(1))}\n`);
  const provider = usageProvider(p);
  const [a, b] = await Promise.all([provider.before!('post_message', {}), provider.before!('submit_result', {})]);
  expect([a?.['usage'], b?.['usage']].filter(Boolean)).toHaveLength(1);
});

it("the hook's note names the transcript; without it the newest in the project's folder is read", async () => {
  const p = place();
  const older = claudeTranscript(p, 'older');
  appendFileSync(older, `${claudeAnswerLine('o', answer(9))}\n`);
  const elsewhere = join(p.root, 'elsewhere.jsonl');
  writeFileSync(elsewhere, `${claudeAnswerLine('e', answer(1))}\n`);
  utimesSync(elsewhere, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  await noteTranscript({ cwd: p.cwd, app: 'claude-code', path: elsewhere, dir: p.stateDir });
  expect(await call(usageProvider(p), 'post_message')).toMatchObject({ input_tokens: 101 });
});

it('Codex: the rollout whose session_meta names this folder, newest; deltas of its running sum', async () => {
  const p = place();
  const day = join(p.home, '.codex', 'sessions', '2026', '12', '04');
  mkdirSync(day, { recursive: true });
  const meta = (cwd: string) => JSON.stringify({ timestamp: 't', ordinal: 0, type: 'session_meta', payload: { id: 'x', cwd, cli_version: '0.169.0', base_instructions: { text: 'long '.repeat(5000) } } });
  const other = join(day, 'rollout-2026-12-04T21-39-15-b.jsonl');
  writeFileSync(other, `${meta('/somewhere/else')}\n${codexTokenCountLine({ input: 9, cached: 0, output: 9, reasoning: 0 })}\n`);
  const ours = join(day, 'rollout-2026-12-04T21-39-13-a.jsonl');
  writeFileSync(ours, `${meta(p.cwd)}\n${JSON.stringify({ type: 'turn_context', payload: { model: 'stand-in' } })}\n${codexTokenCountLine({ input: 1130, cached: 1000, output: 20, reasoning: 3 })}\n`);
  const provider = usageProvider(p);
  expect(await call(provider, 'post_message')).toEqual({ input_tokens: 130, output_tokens: 20, cached_tokens: 1000, model: 'stand-in' });
  appendFileSync(ours, `${codexTokenCountLine({ input: 2261, cached: 2001, output: 41, reasoning: 6 })}\n`);
  expect(await call(provider, 'submit_result')).toEqual({ input_tokens: 130, output_tokens: 21, cached_tokens: 1001, model: 'stand-in' });
});

it('ROUNDTABLE_USAGE=off adds nothing; a folder with no session adds nothing and fails nothing', async () => {
  const p = place();
  const file = claudeTranscript(p);
  appendFileSync(file, `${claudeAnswerLine('m1', answer(1))}\n`);
  expect(await call(usageProvider({ ...p, env: { ROUNDTABLE_USAGE: 'off' } }), 'submit_result')).toBeUndefined();
  expect(await call(usageProvider({ ...p, cwd: join(p.root, 'nowhere') }), 'submit_result')).toBeUndefined();
});
