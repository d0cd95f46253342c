// One connect in a fresh process, for bench/mcp-revisions.mjs: imports the v2 SDK client, connects to the /mcp in
// argv in the negotiation mode named there, lists the tools, and prints one JSON line with the times (ms) from just
// before connect() to the connection and to the first tools/list answer, and the revision it landed on.
// Usage: node bench/mcp-connect-probe.mjs URL MODE   (MODE: legacy | auto | 2026-07-28; the token in ROUNDTABLE_TOKEN)
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [url, modeArg] = process.argv.slice(2);
const mode = modeArg === 'legacy' || modeArg === 'auto' ? modeArg : { pin: modeArg };
const client = new Client({ name: 'roundtable-bench', version: '0.0.0' }, { capabilities: {}, versionNegotiation: { mode } });
const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { authorization: `Bearer ${process.env.ROUNDTABLE_TOKEN}` } } });
const t0 = performance.now();
await client.connect(transport);
const connectMs = performance.now() - t0;
const { tools } = await client.listTools();
const listMs = performance.now() - t0;
process.stdout.write(`${JSON.stringify({ connectMs, listMs, era: client.getProtocolEra(), tools: tools.length })}\n`);
await client.close();
