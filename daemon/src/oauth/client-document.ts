// Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client whose id is an https URL is
// described by the JSON document at that URL. Fetched as webhooks are sent: the name resolved once and every address
// checked (no private, loopback, link-local or reserved targets, unless ROUNDTABLE_OAUTH_ALLOW_LOOPBACK allows
// loopback for tests), the socket pinned to the checked address, no redirect followed, size and time capped.
import http from 'node:http';
import https from 'node:https';
import { pinnedLookup, type Resolver } from '../webhooks/address-policy.js';
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
  const pinned = await pinnedLookup(url, { loopback: allowLoopback, private: false }, resolve);
  if ('error' in pinned) {
    if (pinned.error === 'dns_failed') return { ok: false, why: 'its host name does not resolve' };
    return { ok: false, why: `it is at a ${pinned.error.slice('address_refused:'.length).replace('_', '-')} address, which the board does not fetch from` };
  }
  const { lookup } = pinned;
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
