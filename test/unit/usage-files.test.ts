// Reading the apps' session files for usage (issue 35): Claude Code's transcript and Codex's rollout, in the shapes
// Claude Code 2.1.328 and Codex 0.169.0 wrote against the stand-in model (test/apps/usage.test.ts runs them for real).
import { appendFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { claudeProjectFolder, emptyClaudeTally, tallyClaudeLines } from '../../bridge/src/usage/claude-transcript.js';
import { emptyCodexTally, tallyCodexLines } from '../../bridge/src/usage/codex-rollout.js';
import { readNewLines } from '../../bridge/src/usage/tail.js';
import { claudeAnswerLine, codexTokenCountLine } from '../helpers/usage-lines.js';

const scratch = () => mkdtempSync(join(tmpdir(), 'usage-files-'));

describe("Claude Code's transcript", () => {
  it('counts an answer split over several lines once, maps cache writes into input and cache reads into cached, and keeps the newest model', () => {
    const tally = emptyClaudeTally();
    const a = { input: 100, output: 20, cacheRead: 1000, cacheWrite: 30 };
    const b = { input: 101, output: 21, cacheRead: 1001, cacheWrite: 31 };
    tallyClaudeLines(tally, [
      JSON.stringify({ type: 'user', message: { role: 'user', content: 'the "assistant" said "usage"' } }),
      claudeAnswerLine('msg_a', a, 'text'),
      claudeAnswerLine('msg_a', a, 'tool_use'),
      claudeAnswerLine('msg_b', b, 'text', 'claude-later'),
      JSON.stringify({ type: 'cost-state', totalCostUSD: 0.5, modelUsage: {} }),
    ]);
    expect(tally.totals).toEqual({ input: 100 + 30 + 101 + 31, cached: 2001, output: 41, cost: 0 });
    expect(tally.model).toBe('claude-later');
    // The rest of msg_b, in the next read: still counted once.
    tallyClaudeLines(tally, [claudeAnswerLine('msg_b', b, 'tool_use')]);
    expect(tally.totals.output).toBe(41);
  });

  it('a later line of the same answer that says more adds only the difference; a costUSD on a line is summed', () => {
    const tally = emptyClaudeTally();
    tallyClaudeLines(tally, [claudeAnswerLine('m', { input: 5, output: 1, cacheRead: 0, cacheWrite: 0 })]);
    const line = JSON.parse(claudeAnswerLine('m', { input: 5, output: 9, cacheRead: 0, cacheWrite: 0 }, 'tool_use')) as Record<string, unknown>;
    tallyClaudeLines(tally, [JSON.stringify({ ...line, costUSD: 0.25 })]);
    expect(tally.totals).toEqual({ input: 5, output: 9, cached: 0, cost: 0.25 });
  });

  it('skips lines that do not parse, odd numbers and the <synthetic> model', () => {
    const tally = emptyClaudeTally();
    const odd = JSON.parse(claudeAnswerLine('o', { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 }, 'text', '<synthetic>')) as { message: { usage: Record<string, unknown> } };
    odd.message.usage['input_tokens'] = -7;
    odd.message.usage['output_tokens'] = 1.5;
    tallyClaudeLines(tally, ['{"type":"assistant","message":{"usage"', 'not json "assistant" "usage"', JSON.stringify(odd)]);
    expect(tally.totals).toEqual({ input: 0, output: 0, cached: 0, cost: 0 });
    expect(tally.model).toBeUndefined();
  });

  it("finds the folder as Claude Code 2.1.328 names it: every character but A-Z a-z 0-9 becomes '-'", () => {
    // Observed: /tmp/obs/my proj@x~y+z=ü/sub_x -> -tmp-obs-my-proj-x-y-z---sub-x; /tmp/obs/my.proj_dir/sub-x -> -tmp-obs-my-proj-dir-sub-x
    expect(claudeProjectFolder('/tmp/obs/my proj@x~y+z=ü/sub_x', {}, '/h')).toBe('/h/.claude/projects/-tmp-obs-my-proj-x-y-z---sub-x');
    expect(claudeProjectFolder('/tmp/obs/my.proj_dir/sub-x', { CLAUDE_CONFIG_DIR: '/c' }, '/h')).toBe('/c/projects/-tmp-obs-my-proj-dir-sub-x');
  });
});

describe("Codex's rollout", () => {
  it('takes the latest running sum; input is input minus cached; reasoning is already in output; the model from turn_context', () => {
    const tally = emptyCodexTally();
    tallyCodexLines(tally, [
      JSON.stringify({ type: 'session_meta', payload: { id: 's', cwd: '/w' } }),
      JSON.stringify({ type: 'turn_context', payload: { model: 'stand-in' } }),
      codexTokenCountLine({ input: 1130, cached: 1000, output: 20, reasoning: 3 }),
      JSON.stringify({ type: 'event_msg', payload: { type: 'token_count', info: null } }),
      codexTokenCountLine({ input: 2261, cached: 2001, output: 41, reasoning: 6 }),
      '{"type":"event_msg","payload":{"type":"token_count","info":{"total_tok',
    ]);
    expect(tally.totals).toEqual({ input: 260, cached: 2001, output: 41, cost: 0 });
    expect(tally.model).toBe('stand-in');
  });
});

describe('reading what was appended', () => {
  it('reads whole lines only: a torn last line is read once it is whole', async () => {
    const file = join(scratch(), 't.jsonl');
    writeFileSync(file, 'one\ntwo\nthr');
    const first = await readNewLines({ path: file });
    expect(first.lines).toEqual(['one', 'two']);
    expect(first.left).toBe(3);
    appendFileSync(file, 'ee\nfour');
    const second = await readNewLines({ path: file, from: first.position });
    expect(second.lines).toEqual(['three']);
    expect((await readNewLines({ path: file, from: second.position })).lines).toEqual([]);
  });

  it('reads at most the budget a call, and skips a line longer than the budget', async () => {
    const file = join(scratch(), 'b.jsonl');
    writeFileSync(file, `a\n${'x'.repeat(50)}\nb\nc\n`);
    let read = await readNewLines({ path: file, budget: 20 });
    expect(read.lines).toEqual(['a']);
    const seen: string[] = [...read.lines];
    for (let i = 0; i < 10 && read.left > 0; i++) {
      read = await readNewLines({ path: file, from: read.position, budget: 20 });
      seen.push(...read.lines);
    }
    expect(seen).toEqual(['a', 'b', 'c']);
  });

  it('starts after the first newline when asked to start inside a file, and from the start of a replaced file', async () => {
    const dir = scratch();
    const file = join(dir, 's.jsonl');
    writeFileSync(file, 'aaaa\nbbbb\ncccc\n');
    const tail = await readNewLines({ path: file, start: 7 });
    expect(tail.lines).toEqual(['cccc']);
    writeFileSync(join(dir, 'other.jsonl'), 'new\n');
    const { renameSync } = await import('node:fs');
    renameSync(join(dir, 'other.jsonl'), file);
    const again = await readNewLines({ path: file, from: tail.position });
    expect(again.restarted).toBe(true);
    expect(again.lines).toEqual(['new']);
  });
});

describe("the hook input's transcript", () => {
  it("keeps Claude Code's transcript_path and cwd (the Stop input 2.1.328 sent), and refuses a path that is not an absolute .jsonl", async () => {
    const { parseHookInput } = await import('../../bridge/src/hooks/input.js');
    const observed = { session_id: '38838627-f104-480b-ad8c-8cb89d24dd12', transcript_path: '/tmp/obs/home/.claude/projects/-tmp-obs-x/38838627.jsonl', cwd: '/tmp/obs/x', hook_event_name: 'Stop', stop_hook_active: false, last_assistant_message: 'ok' };
    const input = parseHookInput(JSON.stringify(observed));
    expect(input).toMatchObject({ transcriptPath: observed.transcript_path, cwd: '/tmp/obs/x', eventName: 'Stop' });
    expect(parseHookInput(JSON.stringify({ ...observed, transcript_path: 'rel/x.jsonl', cwd: 'rel' }))).toMatchObject({ transcriptPath: undefined, cwd: undefined });
    expect(parseHookInput(JSON.stringify({ ...observed, transcript_path: '/etc/passwd' })).transcriptPath).toBeUndefined();
  });
});
