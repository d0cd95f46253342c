// The stdio MCP server, on the 2026-07-28 revision and the 2025 ones: the board's tools from shared/, each call
// forwarded to the daemon.
import { PassThrough } from 'node:stream';
import { z } from 'zod';
import { Server } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport } from '@modelcontextprotocol/server/stdio';
import {
  listedToolsFor,
  narrowToolsets,
  registerBoardPrompts,
  registerBoardTools,
  SERVER_CACHE_HINTS,
  SERVER_CAPABILITIES,
  SERVER_INSTRUCTIONS,
  whoami,
  type ListAudience,
  type Toolset,
  type BoardToolHandlers,
  type ToolErrorBody,
} from 'roundtable-shared';
import { BoardRefusal, type BoardClient } from './board-client.js';
import { BridgeError } from './errors.js';
import { Heartbeat } from './heartbeat.js';
import { log } from './log.js';
import { audienceOf, sameAudience, type AudienceCache } from './tool-audience.js';
import { onStopSignals } from './platform.js';
import { CallAttachments } from './submission/attach.js';

// zod compiles a fast parser for each schema the first time it parses with it (one new Function each); the bridge
// parses a few small messages a minute, without V8's optimizing compiler (bin/), so that compiling only costs start-up.
z.config({ jitless: true });

export function toErrorBody(error: unknown): ToolErrorBody {
  if (error instanceof BoardRefusal) return error.body;
  if (error instanceof BridgeError) return error.toBody();
  log.error('tool call failed unexpectedly', { error: String((error as Error)?.message ?? error) });
  return { error: { code: 'internal', message: 'the bridge hit an unexpected error; run `roundtable-bridge status` to check the set-up' } };
}

export interface ServeOptions {
  readonly client: BoardClient;
  readonly version: string;
  /** --toolsets: narrows the list further, whatever the role. */
  readonly toolsets?: readonly Toolset[] | null;
  /** Where the role whoami reported is kept between starts; absent: every tool is listed until whoami answers. */
  readonly audienceCache?: AudienceCache;
  /** What the bridge adds to calls (the git work of a submission, the usage the app reported); none when absent. */
  readonly attachments?: CallAttachments;
}

export async function serveBridge(options: ServeOptions): Promise<void> {
  // The list changes when whoami reveals the role (or a new one): clients that follow list_changed fetch it again
  // (2025: sent unsolicited; 2026-07-28: on the client's subscriptions/listen stream, if it opened one).
  const capabilities = { ...SERVER_CAPABILITIES, tools: { listChanged: true } };
  let audience: ListAudience | undefined = options.audienceCache?.read();
  /** The instance serving the connection: serveStdio builds one per connection (and one for a discarded probe). */
  let current: Server | undefined;
  const learnAudience = (output: Record<string, unknown>) => {
    const known = audienceOf(output);
    if (!known || (audience && sameAudience(known, audience))) return;
    audience = known;
    options.audienceCache?.write(known);
    void current?.sendToolListChanged().catch((error: unknown) => log.debug('list_changed not sent', { error: String(error) }));
  };
  let inFlight = 0;
  let closing: string | undefined;
  const heartbeat = new Heartbeat({ beat: () => options.client.heartbeat() });
  const handlers: BoardToolHandlers = {
    // Until whoami (or the remembered role) tells the role, every tool is listed, and a 2026-07-28 client is told not
    // to keep that list (ttlMs 0); the role's list is kept as on /mcp.
    list: () => ({ tools: listedToolsFor({ ...audience, toolsets: narrowToolsets(audience?.toolsets, options.toolsets) }), provisional: audience === undefined }),
    call: async (name, args) => {
      inFlight++;
      try {
        const attachments = options.attachments;
        const sent = attachments ? await attachments.before(name, args) : args;
        const output = await options.client.callTool(name, sent);
        heartbeat.afterCall(name);
        if (attachments) await attachments.after(name, sent, output);
        if (name === whoami.name) learnAudience(output);
        return output;
      } finally {
        inFlight--;
        // After stdin closed, answer what was already asked, then leave.
        if (closing && inFlight === 0) setImmediate(exit);
      }
    },
    toErrorBody,
  };
  const build = () => {
    const server = new Server({ name: 'roundtable', version: options.version }, { capabilities, instructions: SERVER_INSTRUCTIONS, cacheHints: SERVER_CACHE_HINTS });
    registerBoardTools(server, handlers);
    // Prompts are fixed texts: served from here, with no call to the board and no token needed.
    registerBoardPrompts(server);
    current = server;
    return server;
  };
  // The SDK's transport ends the connection (and drops answers still owed) when stdin ends; it reads a stand-in
  // instead, so the end of stdin is ours to handle: answer what was asked, then leave.
  const input = new PassThrough();
  process.stdin.pipe(input, { end: false });
  const connection = serveStdio(build, {
    transport: new StdioServerTransport(input),
    onerror: (error) => log.debug('mcp message refused or failed', { error: error.name }),
  });
  const exit = () => {
    heartbeat.stop();
    void connection.close().finally(() => process.exit(0));
  };
  const stop = (why: string) => {
    if (closing) return;
    closing = why;
    log.debug('stopping', { why, in_flight: inFlight });
    if (why !== 'stdin closed' || inFlight === 0) exit();
  };
  process.stdin.once('end', () => stop('stdin closed'));
  // The app stopped reading our answers (EPIPE): nobody is left to serve, so leave as quietly as when stdin closes.
  process.stdout.on('error', () => stop('stdout closed'));
  // SIGINT and SIGTERM on POSIX; SIGINT, SIGBREAK and SIGHUP on Windows, which never delivers SIGTERM.
  onStopSignals(stop);
}
