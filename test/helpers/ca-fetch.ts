// A fetch-shaped function over node:https that trusts a private CA, for the SDK client in tests against a TLS board
// (Node 20's fetch takes no CA without an undici dispatcher).
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';

export interface TransportOptions {
  /** PEM of a private CA for the board's certificate (--ca). */
  readonly ca?: string;
}

/** Failures look like fetch's: a TypeError whose cause is the system error, so callers classify them alike. */
function fetchFailed(cause: unknown): TypeError {
  return Object.assign(new TypeError('fetch failed'), { cause });
}

function responseHeaders(message: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(message.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  return headers;
}

export function createNodeFetch(options: TransportOptions = {}): typeof fetch {
  const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: 16 });
  const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: 16, ...(options.ca !== undefined && { ca: options.ca }) });
  return async function nodeFetch(input: string | URL | Request, init?: RequestInit): Promise<Response> {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    const body = request.body ? Buffer.from(await request.arrayBuffer()) : undefined;
    const secure = url.protocol === 'https:';
    return new Promise<Response>((resolve, reject) => {
      const outgoing = (secure ? httpsRequest : httpRequest)(
        url,
        { method: request.method, headers: Object.fromEntries(request.headers), agent: secure ? httpsAgent : httpAgent, signal: request.signal },
        (message) => {
          const chunks: Buffer[] = [];
          message.on('data', (chunk: Buffer) => chunks.push(chunk));
          message.on('error', (error) => reject(fetchFailed(error)));
          message.on('end', () => {
            const status = message.statusCode ?? 502;
            const noBody = status === 204 || status === 304 || request.method === 'HEAD';
            resolve(new Response(noBody ? null : Buffer.concat(chunks), { status, statusText: message.statusMessage ?? '', headers: responseHeaders(message) }));
          });
        },
      );
      outgoing.on('error', (error) => reject(request.signal.aborted ? request.signal.reason : fetchFailed(error)));
      outgoing.end(body);
    });
  };
}
