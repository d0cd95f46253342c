// Loopback networking helpers for tests: free ports, small stand-in HTTP servers, and a TCP relay that can hold new
// connections back.
import { createServer as createHttpServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, createServer as createNetServer, type Socket } from 'node:net';

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

/**
 * An HTTP proxy on loopback in front of `target` that passes every request on, and loses the answer (destroys the
 * client's socket after the target has answered) whenever `lose` says so: the target has applied the request, the
 * client never hears.
 */
export function answerLosingProxy(target: string, lose: (req: IncomingMessage) => boolean): Promise<StandIn> {
  const to = new URL(target);
  return standInServer(async (req, res) => {
    const text = await readBody(req);
    const upstream = httpRequest({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (answer) => {
      let reply = '';
      answer.on('data', (d: Buffer) => (reply += d.toString()));
      answer.on('end', () => {
        if (lose(req)) return void res.socket?.destroy();
        res.writeHead(answer.statusCode!, answer.headers);
        res.end(reply);
      });
    });
    upstream.end(text);
  });
}

export async function readBody(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += (chunk as Buffer).toString();
  return text;
}

export interface TcpRelay {
  readonly port: number;
  /** New connections are accepted but not passed on (their bytes wait) until release(). */
  hold(): void;
  release(): void;
  /** Stops listening, so new connections are refused (ECONNREFUSED) until accept(); open ones carry on. */
  refuse(): void;
  accept(): Promise<void>;
  /** The local ports of the relay's connections to the target: how the target (e.g. pg_stat_activity) sees them. */
  upstreamPorts(): number[];
  close(): Promise<void>;
}

/** A TCP relay on loopback to `targetPort`, so a test can tell one client's connections apart and delay its reconnects. */
export async function tcpRelay(targetPort: number): Promise<TcpRelay> {
  const upstreams = new Set<Socket>();
  const sockets = new Set<Socket>();
  let held: Array<() => void> | undefined;
  const pass = (client: Socket) => {
    if (client.destroyed) return;
    const upstream = connect({ host: '127.0.0.1', port: targetPort });
    upstreams.add(upstream);
    sockets.add(upstream);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      upstreams.delete(upstream);
      sockets.delete(upstream);
      upstream.destroy();
      client.destroy();
    };
    upstream.on('error', end).on('close', end);
    client.on('error', end).on('close', end);
  };
  const server = createNetServer((client) => {
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    if (held) held.push(() => pass(client));
    else pass(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    port,
    hold: () => void (held ??= []),
    release() {
      const waiting = held ?? [];
      held = undefined;
      for (const go of waiting) go();
    },
    refuse: () => void server.close(),
    accept: () => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve)),
    upstreamPorts: () => [...upstreams].map((s) => s.localPort).filter((p): p is number => p !== undefined),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        if (server.listening) server.close(() => resolve());
        else resolve();
      }),
  };
}
