// The three model APIs the agent apps speak, as a stand-in model needs them: reading a request into the conversation
// so far (the tools offered, the tool calls made and their results, the text the app wrote), and writing one step back
// (a tool call or a text answer) as the app expects it, streamed or not.
//   anthropic  Messages API, SSE when stream is true (Claude Code; opencode through @ai-sdk/anthropic)
//   responses  OpenAI Responses API, always streamed (Codex)
//   gemini     generateContent and streamGenerateContent?alt=sse (Gemini CLI)
import type { ServerResponse } from 'node:http';

export type ModelApi = 'anthropic' | 'responses' | 'gemini';

/** One tool call the model made earlier in the conversation, with the app's answer to it. */
export interface PastCall {
  /** The name as the app offered it (e.g. mcp__roundtable__whoami, or namespace::name for Codex). */
  readonly name: string;
  readonly args: Record<string, unknown>;
  /** The result's text: for a board tool, its JSON. */
  readonly resultText: string;
}

export interface Conversation {
  /** Tool names offered in this request; Codex's namespaced tools as NAMESPACE::NAME. */
  readonly offered: string[];
  readonly calls: PastCall[];
  /** Everything the app itself wrote: system prompt, instructions, developer and user messages (hook output is here). */
  readonly texts: string[];
  /** A JSON answer was asked for, with this schema (the Gemini CLI's routing and checks). */
  readonly jsonSchema?: Record<string, unknown>;
}

/** One step of the model: call a tool (by an offered name, after a text block when `note` is set), or answer in text and end the turn. */
export type WireStep = { readonly call: string; readonly args: Record<string, unknown>; readonly note?: string } | { readonly text: string };

/**
 * The model use one answer reports, in the Anthropic sense: `input` excludes what was read from or written to the
 * prompt cache. The OpenAI wire reports input as input + cacheRead + cacheWrite with cacheRead as its cached part;
 * the Gemini wire as promptTokenCount. `reasoning` is part of `output` on every wire.
 */
export interface WireUsage {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly cacheWrite: number;
  readonly reasoning: number;
}

export const DEFAULT_USAGE: WireUsage = { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, reasoning: 0 };

type Any = Record<string, any>;

const textOf = (content: unknown): string => {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((part: Any) => (typeof part === 'string' ? part : typeof part?.text === 'string' ? part.text : '')).join('');
  return content === undefined ? '' : JSON.stringify(content);
};

function anthropicConversation(body: Any): Conversation {
  const texts: string[] = [];
  const calls: PastCall[] = [];
  const asked = new Map<string, { name: string; args: Any }>();
  const system = body['system'];
  if (system !== undefined) texts.push(textOf(system));
  for (const message of (body['messages'] ?? []) as Any[]) {
    const blocks: Any[] = typeof message['content'] === 'string' ? [{ type: 'text', text: message['content'] }] : message['content'] ?? [];
    for (const block of blocks) {
      if (block['type'] === 'tool_use') asked.set(block['id'], { name: block['name'], args: block['input'] ?? {} });
      else if (block['type'] === 'tool_result') {
        const call = asked.get(block['tool_use_id']);
        if (call) calls.push({ name: call.name, args: call.args, resultText: textOf(block['content']) });
      } else if (block['type'] === 'text' && message['role'] !== 'assistant') texts.push(block['text']);
    }
  }
  return { offered: ((body['tools'] ?? []) as Any[]).map((t) => t['name']), calls, texts };
}

function responsesConversation(body: Any): Conversation {
  const texts: string[] = [];
  const calls: PastCall[] = [];
  const asked = new Map<string, { name: string; args: Any }>();
  if (typeof body['instructions'] === 'string') texts.push(body['instructions']);
  for (const item of (body['input'] ?? []) as Any[]) {
    if (item['type'] === 'message' && item['role'] !== 'assistant') texts.push(textOf(item['content']));
    else if (item['type'] === 'function_call') {
      const name = item['namespace'] ? `${item['namespace']}::${item['name']}` : item['name'];
      asked.set(item['call_id'], { name, args: JSON.parse(item['arguments'] || '{}') });
    } else if (item['type'] === 'function_call_output') {
      const call = asked.get(item['call_id']);
      if (call) calls.push({ name: call.name, args: call.args, resultText: textOf(item['output']) });
    }
  }
  const offered: string[] = [];
  for (const tool of (body['tools'] ?? []) as Any[]) {
    if (tool['type'] === 'namespace') for (const inner of (tool['tools'] ?? []) as Any[]) offered.push(`${tool['name']}::${inner['name']}`);
    else if (tool['name']) offered.push(tool['name']);
  }
  return { offered, calls, texts };
}

/** A Gemini functionResponse's text: MCP results come as { output } or { content: [{ text }] } or an error. */
function geminiResultText(response: Any): string {
  if (typeof response?.['output'] === 'string') return response['output'];
  if (Array.isArray(response?.['content'])) return textOf(response['content']);
  return JSON.stringify(response ?? {});
}

function geminiConversation(body: Any): Conversation {
  const texts: string[] = [];
  const calls: PastCall[] = [];
  const asked: Array<{ name: string; args: Any }> = [];
  if (body['systemInstruction']) texts.push(textOf(body['systemInstruction']['parts']));
  for (const content of (body['contents'] ?? []) as Any[]) {
    for (const part of (content['parts'] ?? []) as Any[]) {
      if (part['functionCall']) asked.push({ name: part['functionCall']['name'], args: part['functionCall']['args'] ?? {} });
      else if (part['functionResponse']) {
        const index = asked.findIndex((a) => a.name === part['functionResponse']['name']);
        const call = index >= 0 ? asked.splice(index, 1)[0]! : { name: part['functionResponse']['name'], args: {} };
        calls.push({ name: call.name, args: call.args, resultText: geminiResultText(part['functionResponse']['response']) });
      } else if (typeof part['text'] === 'string' && content['role'] !== 'model') texts.push(part['text']);
    }
  }
  const offered = ((body['tools'] ?? []) as Any[]).flatMap((t) => ((t['functionDeclarations'] ?? []) as Any[]).map((f) => f['name']));
  const schema = body['generationConfig']?.['responseJsonSchema'] ?? body['generationConfig']?.['responseSchema'];
  return { offered, calls, texts, ...(schema && { jsonSchema: schema }) };
}

export function readConversation(api: ModelApi, body: Any): Conversation {
  return api === 'anthropic' ? anthropicConversation(body) : api === 'responses' ? responsesConversation(body) : geminiConversation(body);
}

/** A value of the JSON schema's shape, for an app that asked for structured output it only routes on. */
export function sampleOf(schema: Any): unknown {
  const type = String(schema['type'] ?? '').toLowerCase();
  if (Array.isArray(schema['enum'])) return schema['enum'][0];
  if (type === 'object') return Object.fromEntries(Object.entries((schema['properties'] ?? {}) as Any).map(([k, v]) => [k, sampleOf(v as Any)]));
  if (type === 'integer' || type === 'number') return 1;
  if (type === 'boolean') return false;
  if (type === 'array') return [];
  return 'ok';
}

let ids = 0;
const nextId = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(ids++).toString(36)}`;

function sse(res: ServerResponse, events: Array<{ event?: string; data: unknown }>): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  for (const e of events) res.write(`${e.event ? `event: ${e.event}\n` : ''}data: ${JSON.stringify(e.data)}\n\n`);
  res.end();
}

function json(res: ServerResponse, value: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

function anthropicAnswer(res: ServerResponse, body: Any, step: WireStep, figures: WireUsage): void {
  const id = nextId('msg');
  const usage = { input_tokens: figures.input, output_tokens: figures.output, cache_creation_input_tokens: figures.cacheWrite, cache_read_input_tokens: figures.cacheRead };
  const blocks: Any[] = 'call' in step ? [...(step.note ? [{ type: 'text', text: step.note }] : []), { type: 'tool_use', id: nextId('toolu'), name: step.call, input: step.args }] : [{ type: 'text', text: step.text }];
  const stop = 'call' in step ? 'tool_use' : 'end_turn';
  if (!body['stream']) return json(res, { id, type: 'message', role: 'assistant', model: body['model'], content: blocks, stop_reason: stop, stop_sequence: null, usage });
  const ev = (type: string, data: Any) => ({ event: type, data: { type, ...data } });
  const streamed = blocks.flatMap((block, index) => {
    const start = block['type'] === 'tool_use' ? { ...block, input: {} } : { type: 'text', text: '' };
    const delta = block['type'] === 'tool_use' ? { type: 'input_json_delta', partial_json: JSON.stringify(block['input']) } : { type: 'text_delta', text: block['text'] };
    return [ev('content_block_start', { index, content_block: start }), ev('content_block_delta', { index, delta }), ev('content_block_stop', { index })];
  });
  sse(res, [
    ev('message_start', { message: { id, type: 'message', role: 'assistant', model: body['model'], content: [], stop_reason: null, stop_sequence: null, usage: { ...usage, output_tokens: 1 } } }),
    ...streamed,
    ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: figures.output } }),
    ev('message_stop', {}),
  ]);
}

function responsesAnswer(res: ServerResponse, step: WireStep, figures: WireUsage): void {
  const id = nextId('resp');
  let item: Any;
  if ('call' in step) {
    const [namespace, name] = step.call.includes('::') ? step.call.split('::') : [undefined, step.call];
    item = { type: 'function_call', id: nextId('fc'), call_id: nextId('call'), name, ...(namespace && { namespace }), arguments: JSON.stringify(step.args), status: 'completed' };
  } else {
    item = { type: 'message', id: nextId('msg'), role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: step.text, annotations: [] }] };
  }
  const input = figures.input + figures.cacheRead + figures.cacheWrite;
  const usage = { input_tokens: input, output_tokens: figures.output, total_tokens: input + figures.output, input_tokens_details: { cached_tokens: figures.cacheRead }, output_tokens_details: { reasoning_tokens: figures.reasoning } };
  const ev = (data: Any) => ({ event: data['type'], data });
  sse(res, [
    ev({ type: 'response.created', response: { id, object: 'response', status: 'in_progress', output: [] } }),
    ev({ type: 'response.output_item.added', output_index: 0, item }),
    ev({ type: 'response.output_item.done', output_index: 0, item }),
    ev({ type: 'response.completed', response: { id, object: 'response', status: 'completed', output: [item], usage } }),
  ]);
}

function geminiAnswer(res: ServerResponse, stream: boolean, step: WireStep, figures: WireUsage): void {
  const part = 'call' in step ? { functionCall: { name: step.call, args: step.args } } : { text: step.text };
  const prompt = figures.input + figures.cacheRead + figures.cacheWrite;
  const answer = { candidates: [{ content: { role: 'model', parts: [part] }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: prompt, candidatesTokenCount: figures.output, totalTokenCount: prompt + figures.output } };
  if (stream) sse(res, [{ data: answer }]);
  else json(res, answer);
}

export function writeStep(api: ModelApi, res: ServerResponse, request: { body: Any; stream: boolean }, step: WireStep, usage: WireUsage = DEFAULT_USAGE): void {
  if (api === 'anthropic') anthropicAnswer(res, request.body, step, usage);
  else if (api === 'responses') responsesAnswer(res, step, usage);
  else geminiAnswer(res, request.stream, step, usage);
}
