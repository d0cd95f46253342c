// A TCP proxy on loopback that a test puts between daemons and PostgreSQL to make the network fail on purpose: it
// forwards, resets every connection (a real RST on both sides), stalls (stops carrying bytes while every socket stays
// open, as a network that drops packets does), and restores.
import { connect, createServer, type Socket } from 'node:net';

export interface FaultProxy {
  readonly port: number;
  /** A URL like `databaseUrl` that goes through the proxy. */
  via(databaseUrl: string): string;
  /** Sends a TCP reset to both ends of every open connection; returns how many connections it cut. */
  resetAll(): number;
  /** From now until restore(), no byte goes either way; new connections are accepted and held, their bytes too. */
  stall(): void;
  /** Carries again whatever was held, in order, and everything after it. */
  restore(): void;
  /** Connections open now. */
  connections(): number;
  close(): Promise<void>;
}

interface Pair {
  readonly client: Socket;
  upstream: Socket | undefined;
}

export async function faultProxy(targetPort: number): Promise<FaultProxy> {
  const pairs = new Set<Pair>();
  let stalled = false;
  /** Bytes that arrived during a stall, each with where it goes, in arrival order. */
  let held: Array<{ to: () => Socket | undefined; chunk: Buffer }> = [];
  /** Connections accepted during a stall: connected upstream on restore. */
  let waiting: Pair[] = [];

  const forward = (from: Socket, to: () => Socket | undefined) => {
    from.on('data', (chunk: Buffer) => {
      const target = to();
      if (stalled || !target) {
        held.push({ to, chunk });
        return;
      }
      if (!target.write(chunk)) {
        from.pause();
        target.once('drain', () => from.resume());
      }
    });
  };

  const drop = (pair: Pair) => {
    pairs.delete(pair);
    pair.client.destroy();
    pair.upstream?.destroy();
  };

  const link = (pair: Pair) => {
    const upstream = connect({ host: '127.0.0.1', port: targetPort });
    pair.upstream = upstream;
    forward(upstream, () => pair.client);
    upstream.on('error', () => drop(pair));
    upstream.on('close', () => drop(pair));
  };

  const server = createServer((client) => {
    const pair: Pair = { client, upstream: undefined };
    pairs.add(pair);
    forward(client, () => pair.upstream);
    client.on('error', () => drop(pair));
    client.on('close', () => drop(pair));
    if (stalled) waiting.push(pair);
    else link(pair);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;

  return {
    port,
    via(databaseUrl) {
      const url = new URL(databaseUrl);
      url.host = `127.0.0.1:${port}`;
      return url.toString();
    },
    resetAll() {
      let cut = 0;
      for (const pair of [...pairs]) {
        pairs.delete(pair);
        cut++;
        // resetAndDestroy: SO_LINGER 0, so the close is an RST, not a FIN.
        if (!pair.client.destroyed) pair.client.resetAndDestroy();
        if (pair.upstream && !pair.upstream.destroyed) pair.upstream.resetAndDestroy();
      }
      return cut;
    },
    stall() {
      stalled = true;
      // Nothing is read while stalled, so the peers' own buffers fill as they would behind a dead link.
      for (const pair of pairs) {
        pair.client.pause();
        pair.upstream?.pause();
      }
    },
    restore() {
      stalled = false;
      for (const pair of waiting) if (pairs.has(pair)) link(pair);
      waiting = [];
      const pending = held;
      held = [];
      for (const { to, chunk } of pending) to()?.write(chunk);
      for (const pair of pairs) {
        pair.client.resume();
        pair.upstream?.resume();
      }
    },
    connections: () => pairs.size,
    async close() {
      for (const pair of [...pairs]) drop(pair);
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
