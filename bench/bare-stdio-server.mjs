// The bare baseline for the bridge benchmarks: an MCP SDK (1.32.2) stdio server and nothing else.
// One McpServer, one trivial tool registered with registerTool, a StdioServerTransport. No network, no token, no
// config, no logging: its start-up time and memory are what any Node MCP server built on the SDK pays at least,
// and its per-call latency is the floor of one stdio round trip through the SDK on both ends.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'bare-stdio', version: '0.0.0' });
server.registerTool(
  'echo',
  { description: 'Returns its text argument.', inputSchema: { text: z.string() } },
  async ({ text }) => ({ content: [{ type: 'text', text }] }),
);
await server.connect(new StdioServerTransport());
