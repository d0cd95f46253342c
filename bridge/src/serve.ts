// The stdio MCP server: the board's tools from shared/, each call forwarded to the daemon.
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { registerBoardPrompts, registerBoardTools, SERVER_CAPABILITIES, SERVER_INSTRUCTIONS, type ToolErrorBody } from 'roundtable-shared';
import { BoardRefusal, type BoardClient } from './board-client.js';
import { BridgeError } from './errors.js';
import { Heartbeat } from './heartbeat.js';
import { log } from './log.js';

export function toErrorBody(error: unknown): ToolErrorBody {
  if (error instanceof BoardRefusal) return error.body;
  if (error instanceof BridgeError) return error.toBody();
  log.error('tool call failed unexpectedly', { error: String((error as Error)?.message ?? error) });
  return { error: { code: 'internal', message: 'the bridge hit an unexpected error; run `roundtable-bridge status` to check the set-up' } };
}

export async function serveStdio(options: { client: BoardClient; version: string }): Promise<void> {
  const server = new Server({ name: 'roundtable', version: options.version }, { capabilities: SERVER_CAPABILITIES, instructions: SERVER_INSTRUCTIONS });
  let inFlight = 0;
  let closing: string | undefined;
  const heartbeat = new Heartbeat({ beat: () => options.client.heartbeat() });
  const exit = () => {
    heartbeat.stop();
    void server.close().finally(() => process.exit(0));
  };
  registerBoardTools(server, {
    call: async (name, args) => {
      inFlight++;
      try {
        const output = await options.client.callTool(name, args);
        heartbeat.afterCall(name);
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
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  await server.connect(transport);
}
