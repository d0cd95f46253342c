// The doctor's tls line: the certificate and key files, whether they match, and how long the certificate has left.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { isLoopback } from '../process/exposure.js';
import type { Config } from '../runtime/config.js';
import type { CheckResult, CheckStatus } from '../store/check-result.js';
import { errorCode, formatDuration, openTo, result, summarise, type Finding } from './result.js';

/** A certificate expiring sooner than this is reported. */
export const CERT_WARN_MS = 14 * 24 * 3600 * 1000;

/** How a certificate's validity period looks at `now`. */
export function classifyCertificateExpiry(validFrom: Date, validTo: Date, now: Date = new Date()): { status: CheckStatus; detail: string } {
  const day = (d: Date) => d.toISOString().slice(0, 10);
  const left = validTo.getTime() - now.getTime();
  if (Number.isNaN(left) || Number.isNaN(validFrom.getTime())) return { status: 'fail', detail: 'the certificate has unreadable validity dates' };
  if (now.getTime() < validFrom.getTime()) return { status: 'fail', detail: `the certificate is not valid before ${day(validFrom)}` };
  if (left <= 0) return { status: 'fail', detail: `the certificate expired on ${day(validTo)}, ${formatDuration(-left)} ago` };
  if (left < CERT_WARN_MS) return { status: 'warn', detail: `the certificate expires in ${formatDuration(left)}, on ${day(validTo)}` };
  return { status: 'ok', detail: `valid until ${day(validTo)} (${formatDuration(left)})` };
}

export function checkTls(config: Config, now = new Date()): CheckResult {
  if (!config.tls) {
    return result('tls', 'ok', isLoopback(config.host) ? 'not configured (plain HTTP on loopback; put a TLS proxy in front to expose the board)' : 'not configured (plain HTTP)');
  }
  const { certPath, keyPath } = config.tls;
  const readable = (path: string, variable: string): Buffer | CheckResult => {
    try {
      return readFileSync(path);
    } catch (error) {
      return result('tls', 'fail', `cannot read ${variable} ${resolve(path)} (${errorCode(error)})`, `check the path in ${variable} and that the board's user can read the file`);
    }
  };
  const certPem = readable(certPath, 'ROUNDTABLE_TLS_CERT');
  if (!Buffer.isBuffer(certPem)) return certPem;
  const keyPem = readable(keyPath, 'ROUNDTABLE_TLS_KEY');
  if (!Buffer.isBuffer(keyPem)) return keyPem;
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(certPem);
  } catch (error) {
    return result('tls', 'fail', `ROUNDTABLE_TLS_CERT ${resolve(certPath)} is not a PEM certificate (${(error as Error).message})`, 'point ROUNDTABLE_TLS_CERT at the PEM certificate (the full chain file, e.g. fullchain.pem)');
  }
  let key;
  try {
    key = createPrivateKey(keyPem);
  } catch {
    return result('tls', 'fail', `ROUNDTABLE_TLS_KEY ${resolve(keyPath)} is not an unencrypted PEM private key`, 'point ROUNDTABLE_TLS_KEY at the PEM private key (not passphrase-protected)');
  }
  const findings: Finding[] = [];
  if (!cert.checkPrivateKey(key)) {
    findings.push({ status: 'fail', detail: 'the key does not match the certificate', fix: "set ROUNDTABLE_TLS_KEY to the certificate's own private key" });
  }
  const expiry = classifyCertificateExpiry(new Date(cert.validFrom), new Date(cert.validTo), now);
  if (expiry.status !== 'ok') {
    findings.push({ status: expiry.status, detail: expiry.detail, fix: 'renew the certificate, then `systemctl reload roundtable` (SIGHUP makes the board re-read the TLS files)' });
  }
  const keyExposure = openTo(statSync(keyPath).mode & 0o777);
  if (keyExposure) findings.push({ status: 'warn', detail: `key file: ${keyExposure}`, fix: `chmod 600 ${resolve(keyPath)}` });
  const base = [expiry.status === 'ok' ? `certificate ${expiry.detail}` : '', findings.some((f) => f.detail.startsWith('the key does not')) ? '' : 'key matches'];
  return summarise('tls', base.filter(Boolean).join(', '), findings);
}
