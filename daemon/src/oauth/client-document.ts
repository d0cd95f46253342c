// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client whose id is an https URL is
// described by the JSON document at that URL. Fetched as webhooks are sent: the name resolved once and every address
// checked (no private, loopback, link-local or reserved targets, unless ROUNDTABLE_OAUTH_ALLOW_LOOPBACK allows
// loopback for tests), the socket pinned to the checked address, no redirect followed, size and time capped.
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { refusedKind, type Resolver } from '../webhooks/address-policy.js';
import { systemResolver } from '../webhooks/deliver.js';

/** The draft asks servers to accept documents of at least 5 KB; larger ones are refused. */
export const DOCUMENT_CAP_BYTES = 16 * 1024;
export const DOCUMENT_TIMEOUT_MS = 5_000;

export type DocumentFetch = { readonly ok: true; readonly body: unknown } | { readonly ok: false; readonly why: string };

/** Whether this text may name a client by its metadata document: https with a path, no fragment or credentials. */
export function isDocumentClientId(clientId: string, allowLoopback: boolean): boolean {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  const loopbackHttp = allowLoopback && url.protocol === 'http:' && (url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]');
  return (url.protocol === 'https:' || loopbackHttp) && url.pathname !== '/' && !url.hash && !url.username && !url.password;
}

export async function fetchClientDocument(clientId: string, allowLoopback: boolean, resolve: Resolver = systemResolver): Promise<DocumentFetch> {
  const url = new URL(clientId);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host);
  } catch {
    return { ok: false, why: 'its host name does not resolve' };
  }
  if (addresses.length === 0) return { ok: false, why: 'its host name does not resolve' };
  for (const { address } of addresses) {
    const refused = refusedKind(address, { loopback: allowLoopback, private: false });
    if (refused) return { ok: false, why: `it is at a ${refused.replace('_', '-')} address, which the board does not fetch from` };
  }
  const pinned = addresses[0]!;
  const lookup: LookupFunction = (_name, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as unknown as (e: null, a: Array<{ address: string; family: number }>) => void)(null, [pinned]);
    else callback(null, pinned.address, pinned.family);
  };
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<DocumentFetch>((settle) => {
    let done = false;
    const finish = (outcome: DocumentFetch) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      settle(outcome);
    };
    const req = client.request(url, { method: 'GET', lookup, agent: false, headers: { accept: 'application/json', 'user-agent': 'roundtable-oauth' } });
    const timer = setTimeout(() => finish({ ok: false, why: `it did not arrive within ${DOCUMENT_TIMEOUT_MS / 1000} s` }), DOCUMENT_TIMEOUT_MS);
    req.on('error', () => finish({ ok: false, why: 'it could not be fetched' }));
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) return finish({ ok: false, why: 'its URL answered with a redirect, which the board does not follow' });
      if (status !== 200) return finish({ ok: false, why: `its URL answered HTTP ${status}` });
      const declared = Number(res.headers['content-length']);
      if (declared > DOCUMENT_CAP_BYTES) return finish({ ok: false, why: `it is larger than ${DOCUMENT_CAP_BYTES / 1024} KB` });
      const chunks: Buffer[] = [];
      let read = 0;
      res.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > DOCUMENT_CAP_BYTES) return finish({ ok: false, why: `it is larger than ${DOCUMENT_CAP_BYTES / 1024} KB` });
        chunks.push(chunk);
      });
      res.on('end', () => {
        try {
          finish({ ok: true, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown });
        } catch {
          finish({ ok: false, why: 'it is not JSON' });
        }
      });
      res.on('error', () => finish({ ok: false, why: 'it could not be fetched' }));
    });
    req.end();
  });
}
