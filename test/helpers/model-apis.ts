// A stand-in for the model APIs of the real agent apps, on loopback: each app is pointed at BASE/<app>/..., speaks its
// own API (model-wire.ts), and gets its next step from the test's script for that app, which names board tools by their
// own names; the stand-in finds them among the tools the app offered. Every request is recorded with what the app
// wrote into it, so a test can check what hook output and instructions reached the model.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TOOLS } from 'roundtable-shared';
import { DEFAULT_USAGE, readConversation, sampleOf, writeStep, type Conversation, type ModelApi, type PastCall, type WireStep, type WireUsage } from './model-wire.js';
import { readBody, standInServer, type StandIn } from './net.js';

const BOARD_TOOLS = TOOLS.map((t) => t.name).sort((a, b) => b.length - a.length);

/** The board tool an offered name stands for: Claude Code mcp__roundtable__X, Codex mcp__roundtable::X, Gemini CLI mcp_roundtable_X, opencode roundtable_X. */
export function boardToolOf(offered: string): string | undefined {
  return BOARD_TOOLS.find((tool) => offered === tool || ((offered.endsWith(`_${tool}`) || offered.endsWith(`::${tool}`)) && offered.slice(0, -tool.length).includes('roundtable')));
}

export interface BoardCall {
  readonly tool: string;
  readonly args: Record<string, unknown>;
  /** The result as JSON, or undefined if it was not (an app's own error text). */
  readonly result: any;
  readonly resultText: string;
}

export interface ModelTurn {
  readonly app: string;
  /** The board tools called so far in this conversation, in order, with their results. */
  readonly calls: BoardCall[];
  /** What the app wrote into the request (system prompt, instructions, user and hook text), joined. */
  readonly text: string;
  /** The app's own tools called so far (not the board's), with their results. */
  readonly ownCalls: PastCall[];
}

/**
 * A tool call, or a text answer (after afterMs, to keep an app alive while something else happens, e.g. an MCP connect).
 * A call names a board tool, or with `own` one of the app's own tools by the name it offers (Claude Code's Bash);
 * `note` puts a text block before the call (Anthropic wire only), so one answer holds two content blocks.
 */
export type ScriptStep =
  | { readonly call: string; readonly args?: Record<string, unknown>; readonly own?: boolean; readonly note?: string }
  | { readonly say: string; readonly afterMs?: number };
export type Script = (turn: ModelTurn) => ScriptStep;

export interface RecordedRequest {
  readonly app: string;
  readonly api: ModelApi;
  readonly path: string;
  readonly at: number;
  readonly conversation: Conversation;
  /** What the stand-in answered. */
  readonly step: WireStep;
  /** The model use the answer reported. */
  readonly usage: WireUsage;
}

export interface ModelApis extends StandIn {
  readonly requests: RecordedRequest[];
  /** The base URL to give an app; its requests then carry its name. */
  baseFor(app: string): string;
  script(app: string, script: Script): void;
  /** The requests of one app that offered board tools, in order. */
  turnsOf(app: string): RecordedRequest[];
  /** The model use each answer to this app reports, by the answer's number (0 first); DEFAULT_USAGE otherwise. */
  usage(app: string, figures: (index: number) => WireUsage): void;
}

/** More board calls than this in one conversation is a script that loops: the stand-in ends the turn. */
const MAX_CALLS = 40;

function parseResult(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    const start = text.indexOf('{');
    try {
      return start >= 0 ? JSON.parse(text.slice(start, text.lastIndexOf('}') + 1)) : undefined;
    } catch {
      return undefined;
    }
  }
}

function apiOf(path: string): ModelApi | 'count' | undefined {
  if (/\/messages\/count_tokens/.test(path) || /:countTokens/.test(path)) return 'count';
  if (/\/messages(\?|$)/.test(path)) return 'anthropic';
  if (/\/responses(\?|$)/.test(path)) return 'responses';
  if (/:(stream)?[gG]enerateContent/.test(path)) return 'gemini';
  return undefined;
}

/** Claude Code defers MCP tools behind ToolSearch: a tool not offered yet is loaded by selecting its deferred name. */
function toolSearchFor(tool: string, conversation: Conversation, raw: string): WireStep | undefined {
  if (!conversation.offered.includes('ToolSearch')) return undefined;
  const deferred = new RegExp(`mcp__[A-Za-z0-9_-]*roundtable[A-Za-z0-9_-]*__${tool}(?![A-Za-z0-9_])`).exec(raw)?.[0];
  return deferred ? { call: 'ToolSearch', args: { query: `select:${deferred}`, max_results: 5 } } : undefined;
}

export async function modelApis(): Promise<ModelApis> {
  const requests: RecordedRequest[] = [];
  const scripts = new Map<string, Script>();
  const usages = new Map<string, (index: number) => WireUsage>();
  const answered = new Map<string, number>();
  const standIn = await standInServer(async (req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    const app = path.split('/')[1] ?? '';
    const raw = await readBody(req);
    const api = apiOf(path);
    if (api === 'count') {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ input_tokens: 10, totalTokens: 10 }));
    }
    if (!api) {
      res.writeHead(404, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ error: { message: `the stand-in model has no ${req.method} ${path}` } }));
    }
    const body = JSON.parse(raw || '{}') as Record<string, any>;
    const conversation = readConversation(api, body);
    const at = Date.now();
    const { step, afterMs } = decide(app, conversation, raw, scripts.get(app));
    const index = answered.get(app) ?? 0;
    answered.set(app, index + 1);
    const usage = usages.get(app)?.(index) ?? DEFAULT_USAGE;
    requests.push({ app, api, path, at, conversation, step, usage });
    if (afterMs) await new Promise((resolve) => setTimeout(resolve, afterMs));
    writeStep(api, res, { body, stream: api !== 'gemini' || path.includes('streamGenerateContent') }, step, usage);
  });
  return Object.assign(standIn, {
    requests,
    baseFor: (app: string) => `${standIn.url}/${app}`,
    script: (app: string, script: Script) => void scripts.set(app, script),
    usage: (app: string, figures: (index: number) => WireUsage) => void usages.set(app, figures),
    turnsOf: (app: string) => requests.filter((r) => r.app === app && r.conversation.offered.some((name) => boardToolOf(name) !== undefined || name === 'ToolSearch')),
  });
}

function decide(app: string, conversation: Conversation, raw: string, script: Script | undefined): { step: WireStep; afterMs?: number } {
  const step = script?.({ app, calls: boardCalls(conversation), text: conversation.texts.join('\n'), ownCalls: conversation.calls.filter((c) => boardToolOf(c.name) === undefined) });
  const wire = next(conversation, raw, step);
  const delayed = step && 'say' in step && step.afterMs && 'text' in wire && wire.text === step.say;
  return delayed ? { step: wire, afterMs: step.afterMs } : { step: wire };
}

function boardCalls(conversation: Conversation): BoardCall[] {
  return conversation.calls.flatMap((c) => {
    const tool = boardToolOf(c.name);
    return tool ? [{ tool, args: c.args, result: parseResult(c.resultText), resultText: c.resultText }] : [];
  });
}

function next(conversation: Conversation, raw: string, step: ScriptStep | undefined): WireStep {
  // Structured answers (the Gemini CLI routes each prompt through one) and side requests without the board's tools.
  if (conversation.jsonSchema) return { text: JSON.stringify(sampleOf(conversation.jsonSchema)) };
  const boardOffered = conversation.offered.some((name) => boardToolOf(name) !== undefined);
  if (!step || (!boardOffered && !conversation.offered.includes('ToolSearch'))) return { text: 'ok' };
  if (conversation.calls.length >= MAX_CALLS) return { text: `stopping after ${MAX_CALLS} calls` };
  if ('say' in step) return { text: step.say };
  const note = step.note ? { note: step.note } : {};
  if (step.own) return conversation.offered.includes(step.call) ? { call: step.call, args: step.args ?? {}, ...note } : { text: `the tool ${step.call} is not offered` };
  const name = conversation.offered.find((offered) => boardToolOf(offered) === step.call);
  if (name) return { call: name, args: step.args ?? {}, ...note };
  return toolSearchFor(step.call, conversation, raw) ?? { text: `the tool ${step.call} is not offered` };
}
