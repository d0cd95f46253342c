// Whether the board listens where other machines can reach it over plain HTTP: `run` logs it, `doctor` reports it.
import type { Config } from '../runtime/config.js';

export function isLoopback(host: string): boolean {
  const h = host.toLowerCase();
  return h === 'localhost' || h === '::1' || h === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(h);
}

export interface PlainHttpExposure {
  readonly address: string;
  readonly detail: string;
  readonly fix: string;
}

/** The warning for a non-loopback address without TLS (tokens would cross the network in clear), or undefined. */
export function plainHttpExposure(config: Pick<Config, 'host' | 'tls'>): PlainHttpExposure | undefined {
  if (isLoopback(config.host) || config.tls) return undefined;
  return {
    address: config.host,
    detail: `binds ${config.host}, reachable from other machines, without TLS: tokens would cross the network in clear`,
    fix: 'set ROUNDTABLE_TLS_CERT and ROUNDTABLE_TLS_KEY, or set ROUNDTABLE_HOST=127.0.0.1 and put the TLS reverse proxy of docs/DEPLOY.md (section 8) in front',
  };
}
