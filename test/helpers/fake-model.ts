// A stand-in for an OpenAI-compatible model API on loopback: records each request, answers as the test says.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody, standInServer, type StandIn } from './net.js';

export interface ModelRequest {
  readonly authorization: string | undefined;
  readonly model: string;
  readonly messages: Array<{ role: string; content: string }>;
  readonly at: number;
}

export type ModelReply =
  | { kind: 'answer'; text: string; delayMs?: number }
  | { kind: 'status'; status: number }
  | { kind: 'hang' };

export interface FakeModel extends StandIn {
  readonly requests: ModelRequest[];
  /** Connections the client closed before an answer (cancelled calls). */
  aborted: number;
}

/** `reply` decides per request, from the user message (which holds the task title). */
export async function fakeModel(reply: (userMessage: string, request: ModelRequest) => ModelReply): Promise<FakeModel> {
  const requests: ModelRequest[] = [];
  const model = {} as { aborted: number };
  model.aborted = 0;
  const standIn = await standInServer(async (req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.parse(await readBody(req)) as { model: string; messages: ModelRequest['messages'] };
    const request: ModelRequest = { authorization: req.headers.authorization, model: body.model, messages: body.messages, at: Date.now() };
    requests.push(request);
    const decision = reply(body.messages.find((m) => m.role === 'user')?.content ?? '', request);
    if (decision.kind === 'hang') {
      res.on('close', () => {
        if (!res.writableEnded) model.aborted += 1;
      });
      return;
    }
    if (decision.kind === 'status') {
      res.writeHead(decision.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'upstream failure' } }));
      return;
    }
    if (decision.delayMs) await new Promise((resolve) => setTimeout(resolve, decision.delayMs));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id: 'cmpl-1', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: decision.text }, finish_reason: 'stop' }] }));
  });
  return Object.assign(model, standIn, { requests }) as FakeModel;
}
