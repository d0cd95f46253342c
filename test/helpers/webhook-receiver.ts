// A webhook receiver on loopback for tests: records every request (headers, body, arrival time), answers the status
// it is told to, and can go down (its port closed, so connections are refused) and come back on the same port.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
  readonly at: number;
}

export class WebhookReceiver {
  readonly received: Received[] = [];
  /** Connections accepted, whatever came of them. */
  connections = 0;
  status = 200;
  /** While true, requests are read and never answered (a receiver that hangs). */
  stall = false;
  private server: Server | undefined;
  port = 0;

  static async start(): Promise<WebhookReceiver> {
    const receiver = new WebhookReceiver();
    await receiver.up();
    return receiver;
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`;
  }

  async up(): Promise<void> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() });
        if (this.stall) return;
        res.writeHead(this.status, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    server.on('connection', () => this.connections++);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
  }

  async down(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
  }

  /** Requests for one delivery id, in arrival order. */
  byId(id: string): Received[] {
    return this.received.filter((r) => r.headers['webhook-id'] === id);
  }
}
