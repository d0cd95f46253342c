// Webhooks as pure rules: the address policy, the payload formats and their escaping, Standard Webhooks signing
// (checked with the standardwebhooks package), the backoff schedule, and which board change tells of what.
import { describe, expect, it } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { addressRefusal, checkWebhookTarget, checkWebhookUrl, classify, WebhookUrlRefused } from '../../daemon/src/webhooks/address-policy.js';
import { retryDelayMs } from '../../daemon/src/webhooks/backoff.js';
import { eventOfChange, eventOfMessage, eventOfRoomMessage, type WebhookEvent } from '../../daemon/src/store/webhook-events.js';
import { cutTitle, escapeDiscord, escapeSlack, plainLine, projectPageUrl, renderBody, TITLE_LIMIT } from '../../daemon/src/webhooks/payload.js';
import { generateSecret, signatureHeader } from '../../daemon/src/webhooks/signing.js';
import { attemptDelivery } from '../../daemon/src/webhooks/deliver.js';
import type { Task } from 'roundtable-shared';
import { readFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createNetServer, type AddressInfo } from 'node:net';
import { makeTestPki } from '../helpers/tls.js';

const NONE = { loopback: false, private: false };
const LOOPBACK = { loopback: true, private: false };

describe('address policy', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.9.9.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fd00::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['0.0.0.0', 'reserved'],
    ['100.64.0.1', 'reserved'],
    ['224.0.0.1', 'reserved'],
    ['::', 'reserved'],
  ])('refuses %s (%s)', (address, kind) => {
    expect(addressRefusal(address, NONE)).toContain(kind);
  });

  it('admits public addresses, and loopback or private only when allowed (link-local never)', () => {
    expect(addressRefusal('93.184.216.34', NONE)).toBeUndefined();
    expect(addressRefusal('172.32.0.1', NONE)).toBeUndefined();
    expect(addressRefusal('2606:4700::1', NONE)).toBeUndefined();
    expect(addressRefusal('127.0.0.1', { loopback: true, private: false })).toBeUndefined();
    expect(addressRefusal('10.0.0.1', { loopback: true, private: false })).toBeDefined();
    expect(addressRefusal('10.0.0.1', { loopback: false, private: true })).toBeUndefined();
    expect(addressRefusal('169.254.169.254', { loopback: true, private: true })).toBeDefined();
  });

  it('takes https; http only to loopback with the flag; no credentials in the URL', () => {
    expect(checkWebhookUrl('https://hooks.example.com/x#frag', NONE)).toBe('https://hooks.example.com/x');
    expect(() => checkWebhookUrl('http://hooks.example.com/x', NONE)).toThrow(/only https/);
    expect(() => checkWebhookUrl('http://hooks.example.com/x', { loopback: true, private: false })).toThrow(/only to a loopback/);
    expect(checkWebhookUrl('http://127.0.0.1:9/x', { loopback: true, private: false })).toBe('http://127.0.0.1:9/x');
    expect(() => checkWebhookUrl('https://127.0.0.1/x', NONE)).toThrow(/loopback/);
    expect(() => checkWebhookUrl('https://[::1]/x', NONE)).toThrow(/loopback/);
    expect(() => checkWebhookUrl('https://10.0.0.5/x', NONE)).toThrow(/private/);
    expect(() => checkWebhookUrl('https://u:p@hooks.example.com/', NONE)).toThrow(/password/);
    expect(() => checkWebhookUrl('ftp://hooks.example.com/', NONE)).toThrow(WebhookUrlRefused);
    expect(() => checkWebhookUrl('not a url', NONE)).toThrow(/not a URL/);
  });

  it('a name that resolves to a refused address is refused before any connection', async () => {
    let connected = false;
    const outcome = await attemptDelivery(
      { url: 'https://rebind.example.test/hook', allow: NONE, headers: {}, body: '{}', connectTimeoutMs: 1000, responseTimeoutMs: 1000 },
      async () => {
        connected = true; // the resolver is asked; nothing else may happen
        return [{ address: '93.184.216.34', family: 4 }, { address: '10.0.0.7', family: 4 }];
      },
    );
    expect(connected).toBe(true);
    expect(outcome).toEqual({ ok: false, error: 'address_refused:private' });
  });

  // Issue 31: special-purpose IPv6 ranges (and IPv4 carried in IPv6) counted as public. Only globally routable unicast
  // is public; an IPv4 address carried in IPv6 counts as that address (mapped) or as public only when it is (NAT64, 6to4).
  it.each([
    // IPv4
    ['8.8.8.8', 'public'],
    ['93.184.216.34', 'public'],
    ['172.32.0.1', 'public'],
    ['127.0.0.1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.5.4', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['0.0.0.0', 'reserved'],
    ['0.1.2.3', 'reserved'],
    ['100.64.0.1', 'reserved'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['198.51.100.1', 'reserved'],
    ['203.0.113.1', 'reserved'],
    ['224.0.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    // IPv6
    ['2606:4700::1111', 'public'],
    ['2a00:1450:4001::200e', 'public'],
    ['::1', 'loopback'],
    ['::', 'reserved'],
    ['fd12:3456::1', 'private'],
    ['fc00::1', 'private'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['ff02::1', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['::ffff:0:127.0.0.1', 'loopback'],
    ['::ffff:0:10.1.1.1', 'private'],
    ['::127.0.0.1', 'reserved'],
    ['::8.8.8.8', 'reserved'],
    ['::10.0.0.1', 'reserved'],
    ['64:ff9b::7f00:1', 'reserved'],
    ['64:ff9b::10.0.0.1', 'reserved'],
    ['64:ff9b::a9fe:a9fe', 'reserved'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['64:ff9b:1::a00:1', 'reserved'],
    ['2002:7f00:1::1', 'reserved'],
    ['2002:a00:1::1', 'reserved'],
    ['2002:c0a8:101::1', 'reserved'],
    ['2002:808:808::1', 'public'],
    ['fec0::1', 'reserved'],
    ['100::1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['2001::1', 'reserved'],
    ['2001:2::1', 'reserved'],
    ['2001:10::1', 'reserved'],
    ['2001:20::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['5f00::1', 'reserved'],
    ['4000::1', 'reserved'],
    ['1::1', 'reserved'],
    ['not an address', 'reserved'],
  ])('classifies %s as %s', (address, verdict) => {
    expect(classify(address)).toBe(verdict);
    // Nothing but public passes without flags; reserved and link-local pass with none.
    expect(addressRefusal(address, NONE) === undefined).toBe(verdict === 'public');
    if (verdict === 'reserved' || verdict === 'link_local') expect(addressRefusal(address, { loopback: true, private: true })).toBeDefined();
  });

  it('add resolves the host name: localhost, or a name pointing at a refused address, is refused naming the rule', async () => {
    const to = (address: string) => async () => [{ address, family: address.includes(':') ? 6 : 4 }];
    await expect(checkWebhookTarget('https://localhost:8443/hook', NONE, to('127.0.0.1'))).rejects.toThrow(/loopback address \(allowed only with --allow-http-loopback\)/);
    await expect(checkWebhookTarget('https://hooks.example.test/x', NONE, to('10.0.0.7'))).rejects.toThrow(/resolves to 10\.0\.0\.7, refused: a private address \(allowed only with --allow-private\)/);
    await expect(checkWebhookTarget('https://hooks.example.test/x', NONE, to('64:ff9b::a9fe:a9fe'))).rejects.toThrow(/reserved or special-purpose/);
    await expect(checkWebhookTarget('https://hooks.example.test/x', { loopback: false, private: true }, to('10.0.0.7'))).resolves.toBe('https://hooks.example.test/x');
    await expect(checkWebhookTarget('https://hooks.example.test/x', NONE, to('93.184.216.34'))).resolves.toBe('https://hooks.example.test/x');
    // A name that does not resolve now is taken (each delivery resolves it again); so is one that answers too late.
    await expect(checkWebhookTarget('https://hooks.example.test/x', NONE, async () => Promise.reject(new Error('ENOTFOUND')))).resolves.toBe('https://hooks.example.test/x');
    await expect(checkWebhookTarget('https://hooks.example.test/x', NONE, () => new Promise(() => {}), 50)).resolves.toBe('https://hooks.example.test/x');
  });
});

describe('failures are named', () => {
  it('a certificate the daemon does not trust is tls_failed, not connect_failed', async () => {
    const pki = makeTestPki();
    const server = createHttpsServer({ cert: readFileSync(pki.serverCert), key: readFileSync(pki.serverKey) }, (_req, res) => res.end('ok'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const outcome = await attemptDelivery({ url: `https://127.0.0.1:${port}/hook`, allow: LOOPBACK, headers: {}, body: '{}', connectTimeoutMs: 2000, responseTimeoutMs: 2000 });
      expect(outcome).toEqual({ ok: false, error: 'tls_failed' });
    } finally {
      server.close();
      server.closeAllConnections();
    }
  });

  it('a 100 KB response header is response_too_large; a closed port is connect_refused', async () => {
    const server = createNetServer((socket) => {
      // The client drops the connection once the header is over its limit: a reset here is expected.
      socket.on('error', () => {});
      socket.once('data', () => socket.end(`HTTP/1.1 200 OK\r\nX-Big: ${'a'.repeat(100 * 1024)}\r\nContent-Length: 0\r\n\r\n`));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      const outcome = await attemptDelivery({ url: `http://127.0.0.1:${port}/hook`, allow: LOOPBACK, headers: {}, body: '{}', connectTimeoutMs: 2000, responseTimeoutMs: 2000 });
      expect(outcome).toEqual({ ok: false, error: 'response_too_large' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
    const refused = await attemptDelivery({ url: `http://127.0.0.1:${port}/hook`, allow: LOOPBACK, headers: {}, body: '{}', connectTimeoutMs: 2000, responseTimeoutMs: 2000 });
    expect(refused).toEqual({ ok: false, error: 'connect_refused' });
  });
});

const TASK: Task = {
  id: 7,
  title: 'Fix <!channel> @everyone <@U123> *bold* & `code`',
  description: '',
  required_skills: [],
  status: 'claimed',
  assignee: 'w1',
  created_by: 'lead',
  result: null,
  claim_id: 3,
  lease_expires_at: null,
  created_at: '',
  updated_at: '',
} as unknown as Task;

describe('which change tells of what', () => {
  it('submitted and rejected tell; a claim, a release or an approval do not', () => {
    expect(eventOfChange(TASK, { actor: 'w1', status: 'submitted', assignee: 'w1', action: 'submitted' }, 't')?.type).toBe('submitted');
    const rejected = eventOfChange({ ...TASK, status: 'submitted' }, { actor: 'lead', status: 'open', assignee: null, action: 'rejected', review: { verdict: 'reject', note: null, submitter: 'w1' } }, 't');
    expect(rejected?.type).toBe('rejected');
    expect(rejected?.agent).toBe('w1');
    expect(eventOfChange({ ...TASK, status: 'open' }, { actor: 'w1', status: 'claimed', assignee: 'w1', action: 'claimed', lease: { expiresAt: 'x' } }, 't')).toBeNull();
    expect(eventOfChange({ ...TASK, status: 'submitted' }, { actor: 'lead', status: 'done', assignee: 'w1', action: 'approved', review: { verdict: 'approve', note: null, submitter: 'w1' } }, 't')).toBeNull();
  });

  it('only a help request among task messages, only a message naming owners in the room', () => {
    expect(eventOfMessage(TASK, { id: 1, author: 'w1', kind: 'help_request' }, 't')?.type).toBe('help_request');
    expect(eventOfMessage(TASK, { id: 1, author: 'w1', kind: 'progress' }, 't')).toBeNull();
    expect(eventOfRoomMessage({ id: 2, author: 'w1', owners: ['boss'] }, 't')?.owners).toEqual(['boss']);
    expect(eventOfRoomMessage({ id: 2, author: 'w1', owners: [] }, 't')).toBeNull();
    expect(eventOfRoomMessage({ id: 2, author: 'boss', owners: ['boss'] }, 't')).toBeNull();
  });
});

describe('payload formats', () => {
  const event: WebhookEvent = { id: 'msg_1', type: 'submitted', at: '2026-01-01T00:00:00.000Z', actor: 'w1', task: { id: 7, title: TASK.title, status: 'submitted', assignee: 'w1' } };

  it('JSON carries ids, states, names and the link, never the title', () => {
    const body = JSON.parse(renderBody(event, 'json', 'https://board.example.com').body);
    expect(body).toEqual({ type: 'submitted', timestamp: event.at, data: { actor: 'w1', task: { id: 7, status: 'submitted', assignee: 'w1', url: 'https://board.example.com/#task-7' } } });
    expect(JSON.stringify(body)).not.toContain('channel');
  });

  it("a project's link opens its own board at /p/SLUG/; default's stays the bare URL (issue 33)", () => {
    const linkOf = (url: string | undefined) => JSON.parse(renderBody(event, 'json', url).body).data.task.url;
    expect(linkOf(projectPageUrl('https://board.example.com/', 'alpha'))).toBe('https://board.example.com/p/alpha/#task-7');
    expect(linkOf(projectPageUrl('https://board.example.com', 'default'))).toBe('https://board.example.com/#task-7');
    expect(projectPageUrl(undefined, 'alpha')).toBeUndefined();
  });

  it('Slack: &, < and > escaped, so <!channel> and <@U123> are plain text; the title is marked as an agent\'s', () => {
    const { text } = JSON.parse(renderBody(event, 'slack', undefined).body);
    expect(text).toContain('&lt;!channel&gt;');
    expect(text).toContain('&lt;@U123&gt;');
    expect(text).toContain('&amp;');
    expect(text).not.toMatch(/<[!@]/);
    expect(text).toContain('written by an agent');
    expect(escapeSlack('a<b>&c')).toBe('a&lt;b&gt;&amp;c');
  });

  it('Discord: no mention parsed, markdown escaped, @ broken by a zero-width space', () => {
    const body = JSON.parse(renderBody(event, 'discord', undefined).body);
    expect(body.allowed_mentions).toEqual({ parse: [] });
    expect(body.content).not.toContain('@everyone');
    expect(body.content).toContain('@\u200beveryone');
    expect(body.content).toContain('\\*bold\\*');
    expect(body.content).toContain('\\`code\\`');
    expect(escapeDiscord('<@123>')).toBe('\\<@\u200b123\\>');
  });

  it('ntfy: plain text, the title header fixed words', () => {
    const rendered = renderBody(event, 'ntfy', undefined);
    expect(rendered.contentType).toMatch(/^text\/plain/);
    expect(rendered.headers).toEqual({ Title: 'Roundtable: submitted' });
  });

  it('titles are cut to the stated length, by code point, without control characters', () => {
    const long = '😀'.repeat(TITLE_LIMIT + 10);
    const cut = cutTitle(long);
    expect([...cut].length).toBe(TITLE_LIMIT);
    expect(cut.endsWith('…')).toBe(true);
    expect(cutTitle('a\nb\u0007c')).toBe('a b c');
  });

  // Issue 31: C1 controls, separators and bidi overrides reached Slack, Discord and ntfy bodies.
  it.each([
    ['\u0000', 'NUL'],
    ['\u001b', 'ESC'],
    ['\u007f', 'DEL'],
    ['\u0085', 'NEL (C1)'],
    ['\u009b', 'CSI (C1)'],
    ['\u2028', 'line separator'],
    ['\u2029', 'paragraph separator'],
    ['\u202a', 'LRE'],
    ['\u202b', 'RLE'],
    ['\u202c', 'PDF'],
    ['\u202d', 'LRO'],
    ['\u202e', 'RLO'],
    ['\u2066', 'LRI'],
    ['\u2067', 'RLI'],
    ['\u2068', 'FSI'],
    ['\u2069', 'PDI'],
    ['\u200e', 'LRM'],
    ['\u200f', 'RLM'],
    ['\u061c', 'ALM'],
  ])('%s (%s) becomes a space in every chat format', (char) => {
    expect(plainLine(`a${char}b`)).toBe('a b');
    const withChar: WebhookEvent = { ...event, task: { ...event.task!, title: `evil${char}title` } };
    for (const format of ['slack', 'discord', 'ntfy'] as const) {
      const body = renderBody(withChar, format, undefined).body;
      const text = format === 'ntfy' ? body : (Object.values(JSON.parse(body) as Record<string, unknown>).find((v) => typeof v === 'string') as string);
      expect(text).not.toContain(char);
      expect(text).toContain('evil title');
    }
  });

  it('joiners and emoji stay', () => {
    expect(plainLine('👩\u200d💻 naïve')).toBe('👩\u200d💻 naïve');
  });
});

describe('signing', () => {
  it('verifies with the standardwebhooks package, and fails with another secret or body', () => {
    const secret = generateSecret();
    const body = '{"type":"test"}';
    const timestamp = Math.floor(Date.now() / 1000);
    const headers = { 'webhook-id': 'msg_abc', 'webhook-timestamp': String(timestamp), 'webhook-signature': signatureHeader(secret, 'msg_abc', timestamp, body) };
    expect(new Webhook(secret).verify(body, headers)).toEqual({ type: 'test' });
    expect(() => new Webhook(generateSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify('{"type":"other"}', headers)).toThrow();
  });
});

describe('backoff', () => {
  const schedule = { baseMs: 1000, maxMs: 60_000, maxAttempts: 5 };
  it('grows exponentially with jitter between half and all of the step, capped, and ends after the last attempt', () => {
    expect(retryDelayMs(1, schedule, () => 0)).toBe(500);
    expect(retryDelayMs(1, schedule, () => 1)).toBe(1000);
    expect(retryDelayMs(3, schedule, () => 1)).toBe(4000);
    expect(retryDelayMs(4, { ...schedule, maxMs: 5000 }, () => 1)).toBe(5000);
    expect(retryDelayMs(5, schedule)).toBeNull();
  });
});
