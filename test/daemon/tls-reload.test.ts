// A renewed TLS certificate applies on SIGHUP without a restart; a broken one is refused and the old one kept.
import { copyFileSync, writeFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { expect, it } from 'vitest';
import { startBoard } from '../helpers/board.js';
import { eventually } from '../helpers/eventually.js';
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

it('SIGHUP reloads the certificate and key; a broken pair is logged and the one in use stays', async () => {
  const first = makeTestPki('First CA');
  const renewed = makeTestPki('Renewed CA');
  const board = await startBoard({ env: tlsEnv(first) });
  try {
    expect(await presentedIssuer(board.port)).toBe('First CA');
    copyFileSync(renewed.serverCert, first.serverCert);
    copyFileSync(renewed.serverKey, first.serverKey);
    board.process.kill('SIGHUP');
    await eventually('the renewed certificate to be presented', async () => (await presentedIssuer(board.port)) === 'Renewed CA');

    writeFileSync(first.serverCert, 'not a certificate');
    board.process.kill('SIGHUP');
    await eventually('the failed reload to be logged', () => board.output().stderr.includes('TLS certificate reload failed'));
    expect(await presentedIssuer(board.port)).toBe('Renewed CA');
  } finally {
    await board.stop();
  }
});
