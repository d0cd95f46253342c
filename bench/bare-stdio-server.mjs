// The bare baseline for the bridge benchmarks: an MCP SDK (v2, @modelcontextprotocol/server 2.4.0) stdio server and
// nothing else. One McpServer, one trivial tool registered with registerTool, served by serveStdio (the SDK's stdio
// entry for both revisions, as the bridge's). No network, no token, no config, no logging: its start-up time and
// memory are what any Node MCP server built on the SDK pays at least, and its per-call latency is the floor of one
// stdio round trip through the SDK on both ends.
import { McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { z } from 'zod';

serveStdio(() => {
  const server = new McpServer({ name: 'bare-stdio', version: '0.0.0' });
  server.registerTool('echo', { description: 'Returns its text argument.', inputSchema: z.object({ text: z.string() }) }, async ({ text }) => ({
    content: [{ type: 'text', text }],
  }));
  return server;
});
