// Loopback networking helpers for tests: free ports and small stand-in HTTP servers.
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer } from 'node:net';

export async function freePort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface StandIn {
  readonly url: string;
  readonly server: Server;
  close(): Promise<void>;
}

/** A real HTTP server on loopback that answers with the given handler. */
export async function standInServer(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<StandIn> {
  const server = createHttpServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += (chunk as Buffer).toString();
  return text;
}
