// Starting and stopping the board: open the store, load agents, listen over HTTP or HTTPS, shut down cleanly.
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { IDEMPOTENCY_KEY_TTL_MS } from 'roundtable-shared';
import { loadAgentsFile, type AgentDirectory } from './agents.js';
import { createApp } from './app.js';
import { Board } from './board/board.js';
import { ToolDispatcher } from './board/dispatch.js';
import type { Config } from './config.js';
import { log } from './log.js';
import { RateLimiter } from './rate-limit.js';
import { SqliteStore } from './store/sqlite.js';

export interface RunningBoard {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

export async function startBoard(config: Config): Promise<RunningBoard> {
  const agents: AgentDirectory = loadAgentsFile(config.agentsConfigPath);
  for (const name of agents.plaintextTokenAgents) {
    log.warn('agents.json holds a plaintext token; replace it with token_sha256 (run `roundtable init` for a fresh file)', {
      file: config.agentsConfigPath,
      agent: name,
    });
  }
  const tls = config.tls ? { cert: readFileSync(config.tls.certPath), key: readFileSync(config.tls.keyPath) } : undefined;
  const store = new SqliteStore({ path: config.dbPath });
  const board = new Board({ store, agents: () => agents, boardName: config.boardName });
  const dispatcher = new ToolDispatcher({ board, store, limiter: new RateLimiter({ perMinute: config.rateLimitPerMinute }) });
  const app = createApp({ config, store, agents: () => agents, dispatcher });

  const server: ServerType = await new Promise((resolve, reject) => {
    const s = serve(
      {
        fetch: app.fetch,
        hostname: config.host,
        port: config.port,
        ...(tls && { createServer: createHttpsServer, serverOptions: tls }),
      },
      () => resolve(s),
    );
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  // Idempotency keys are honoured for 24 hours; older responses are dropped hourly.
  const purge = setInterval(() => {
    store.purgeResponses(new Date(Date.now() - IDEMPOTENCY_KEY_TTL_MS).toISOString()).catch((error: unknown) => log.error('purging idempotency keys failed', { error: String(error) }));
  }, 60 * 60_000);
  purge.unref();
  const shownHost = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `${tls ? 'https' : 'http'}://${shownHost}:${port}`;

  return {
    url,
    port,
    async close() {
      clearInterval(purge);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Idle keep-alive connections would hold close() open; in-flight requests still finish.
        (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
      });
      await store.close();
    },
  };
}
