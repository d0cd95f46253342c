// A renewed TLS certificate applies on SIGHUP without a restart; a broken one is refused and the old one kept.
import { copyFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { expect, it } from 'vitest';
import { startBoard } from '../helpers/board.js';
import { makeTestPki, tlsEnv } from '../helpers/tls.js';

/** The issuer common name of the certificate the board presents on a new connection. */
function presentedIssuer(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => {
      const issuer = socket.getPeerCertificate().issuer.CN;
      socket.end();
      resolve(String(issuer));
    });
    socket.on('error', reject);
  });
}

async function eventually(check: () => Promise<boolean>, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('SIGHUP reloads the certificate and key; a broken pair is logged and the one in use stays', async () => {
  const first = makeTestPki('First CA');
  const renewed = makeTestPki('Renewed CA');
  const board = await startBoard({ env: tlsEnv(first) });
  try {
    expect(await presentedIssuer(board.port)).toBe('First CA');
    copyFileSync(renewed.serverCert, first.serverCert);
    copyFileSync(renewed.serverKey, first.serverKey);
    board.process.kill('SIGHUP');
    await eventually(async () => (await presentedIssuer(board.port)) === 'Renewed CA');

    writeFileSync(first.serverCert, 'not a certificate');
    board.process.kill('SIGHUP');
    await eventually(async () => board.output().stderr.includes('TLS certificate reload failed'));
    expect(await presentedIssuer(board.port)).toBe('Renewed CA');
  } finally {
    await board.stop();
  }
});
