// A throwaway certificate authority and a server certificate it signed, made with openssl at test set-up.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestPki {
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
}

function openssl(args: string[]): void {
  execFileSync('openssl', args, { stdio: 'ignore' });
}

/** A CA, and a certificate for 127.0.0.1 and localhost signed by it. */
export function makeTestPki(name = 'Roundtable test CA'): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'roundtable-pki-'));
  const caKey = join(dir, 'ca.key');
  const caCert = join(dir, 'ca.pem');
  const serverKey = join(dir, 'server.key');
  const csr = join(dir, 'server.csr');
  const serverCert = join(dir, 'server.pem');
  const ext = join(dir, 'server.ext');
  openssl(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '2', '-subj', `/CN=${name}`, '-keyout', caKey, '-out', caCert]);
  openssl(['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1', '-keyout', serverKey, '-out', csr]);
  writeFileSync(ext, 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\n');
  openssl(['x509', '-req', '-in', csr, '-CA', caCert, '-CAkey', caKey, '-CAcreateserial', '-days', '2', '-extfile', ext, '-out', serverCert]);
  return { caCert, serverCert, serverKey };
}

/** The daemon's environment for serving HTTPS with the PKI's server certificate. */
export function tlsEnv(pki: TestPki): Record<string, string> {
  return { ROUNDTABLE_TLS_CERT: pki.serverCert, ROUNDTABLE_TLS_KEY: pki.serverKey };
}
