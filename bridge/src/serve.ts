// The stdio MCP server: the board's tools from shared/, each call forwarded to the daemon.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
  listedToolsFor,
  narrowToolsets,
  registerBoardPrompts,
  registerBoardTools,
  SERVER_CAPABILITIES,
  SERVER_INSTRUCTIONS,
  whoami,
  type ListAudience,
  type Toolset,
  type ToolErrorBody,
} from 'roundtable-shared';
import { BoardRefusal, type BoardClient } from './board-client.js';
import { BridgeError } from './errors.js';
import { Heartbeat } from './heartbeat.js';
import { log } from './log.js';
import { audienceOf, sameAudience, type AudienceCache } from './tool-audience.js';
import { onStopSignals } from './platform.js';

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
}

export async function serveStdio(options: ServeOptions): Promise<void> {
  // The list changes when whoami reveals the role (or a new one): clients that follow list_changed fetch it again.
  const capabilities = { ...SERVER_CAPABILITIES, tools: { listChanged: true } };
  const server = new Server({ name: 'roundtable', version: options.version }, { capabilities, instructions: SERVER_INSTRUCTIONS });
  let audience: ListAudience = options.audienceCache?.read() ?? {};
  const learnAudience = (output: Record<string, unknown>) => {
    const known = audienceOf(output);
    if (!known || sameAudience(known, audience)) return;
    audience = known;
    options.audienceCache?.write(known);
    void server.sendToolListChanged().catch((error: unknown) => log.debug('list_changed not sent', { error: String(error) }));
  };
  let inFlight = 0;
  let closing: string | undefined;
  const heartbeat = new Heartbeat({ beat: () => options.client.heartbeat() });
  const exit = () => {
    heartbeat.stop();
    void server.close().finally(() => process.exit(0));
  };
  registerBoardTools(server, {
    list: () => listedToolsFor({ ...audience, toolsets: narrowToolsets(audience.toolsets, options.toolsets) }),
    call: async (name, args) => {
      inFlight++;
      try {
        const output = await options.client.callTool(name, args);
        heartbeat.afterCall(name);
        if (name === whoami.name) learnAudience(output);
        return output;
      } finally {
        inFlight--;
        // After stdin closed, answer what was already asked, then leave.
        if (closing && inFlight === 0) setImmediate(exit);
      }
    },
    toErrorBody,
  });
  // Prompts are fixed texts: served from here, with no call to the board and no token needed.
  registerBoardPrompts(server);
  const transport = new StdioServerTransport();
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
  await server.connect(transport);
}
