// One HTTP(S) exchange with the board over node:http/https and keep-alive agents, answered as status, headers and text.
// The web Request/Response/Headers classes (and so fetch, and ky over it) load Node's whole fetch implementation and
// allocate web streams per request: about 8 MB of the bridge's resident memory, for nothing a JSON API needs.
import { Agent as HttpAgent, request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { ExchangeFailed, ExchangeTimedOut, type Answer, type Transport, type TransportOptions } from './exchange.js';

export function createTransport(baseUrl: string, options: TransportOptions = {}): Transport {
  const base = new URL(baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`);
  const secure = base.protocol === 'https:';
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, maxSockets: 16, ...(options.ca !== undefined && { ca: options.ca }) })
    : new HttpAgent({ keepAlive: true, maxSockets: 16 });
  const send = secure ? httpsRequest : httpRequest;

  return (exchange) =>
    new Promise<Answer>((resolve, reject) => {
      const { signal } = exchange;
      if (signal?.aborted) return reject(signal.reason);
      const body = exchange.json === undefined ? undefined : Buffer.from(JSON.stringify(exchange.json), 'utf8');
      const headers: OutgoingHttpHeaders = { accept: 'application/json', ...options.headers, ...exchange.headers };
      if (body) Object.assign(headers, { 'content-type': 'application/json', 'content-length': body.length });
      let settled = false;
      const finish = (outcome: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        outcome();
      };
      const outgoing = send(new URL(exchange.path, base), { method: exchange.method, headers, agent }, (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', (error) => finish(() => reject(failed(error))));
        incoming.on('end', () =>
          finish(() => resolve({ status: incoming.statusCode ?? 502, headers: incoming.headers, text: Buffer.concat(chunks).toString('utf8') })),
        );
      });
      const timer = setTimeout(() => {
        finish(() => reject(new ExchangeTimedOut(exchange.timeoutMs)));
        outgoing.destroy();
      }, exchange.timeoutMs);
      const onAbort = () => {
        finish(() => reject(signal?.reason));
        outgoing.destroy();
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      outgoing.on('error', (error) => finish(() => reject(failed(error))));
      outgoing.end(body);
    });
}

function failed(error: Error & { code?: string }): ExchangeFailed {
  return new ExchangeFailed(error.code ?? error.message, { cause: error });
}
