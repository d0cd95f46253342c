// Failures that happen in the bridge itself. They have their own codes and say how to fix them;
// they are never dressed up as board errors.
import { shellArg } from './platform.js';

export const BRIDGE_ERROR_CODES = [
  'bad_config',
  'no_credential',
  'keychain_unavailable',
  'keychain_locked',
  'keychain_timeout',
  'token_file_insecure',
  'daemon_unreachable',
  'tls_untrusted',
  'timeout',
  'bad_response',
] as const;
export type BridgeErrorCode = (typeof BRIDGE_ERROR_CODES)[number];

export abstract class BridgeError extends Error {
  abstract readonly code: BridgeErrorCode;
  /** What the user can do about it. */
  abstract readonly fix: string;
  /** The body of an MCP error result: marked as coming from the bridge, not the board. */
  toBody() {
    return { error: { code: this.code, message: `${this.message}. ${this.fix}`, source: 'bridge' as const } };
  }
}

export class BadConfig extends BridgeError {
  readonly code = 'bad_config' as const;
  readonly fix: string = 'Run `roundtable-bridge --help` for the options';
}

export class NoCredential extends BridgeError {
  readonly code = 'no_credential' as const;
  /** `login` is the command that stores a token for this board and profile (credentials.ts, loginCommand). */
  constructor(
    readonly account: string,
    readonly login: string,
  ) {
    super(`no token for ${account}: none in ROUNDTABLE_TOKEN, the keychain, or ROUNDTABLE_TOKEN_FILE`);
  }
  get fix() {
    return `Run \`${this.login}\` to store this agent's token in the keychain`;
  }
}

// The keychain errors take the fix for the system they happened on (see keychain.ts); the defaults are Linux's.
export class KeychainUnavailable extends BridgeError {
  readonly code = 'keychain_unavailable' as const;
  constructor(
    message: string,
    readonly fix = 'Start a Secret Service (on Linux: gnome-keyring or KeePassXC in a desktop or D-Bus session), or on a headless machine set ROUNDTABLE_TOKEN, or ROUNDTABLE_TOKEN_FILE pointing to a mode-600 file',
  ) {
    super(message);
  }
}

export class KeychainLocked extends BridgeError {
  readonly code = 'keychain_locked' as const;
  constructor(
    message: string,
    readonly fix = 'Unlock your keyring (log in to the desktop session, or `gnome-keyring-daemon --unlock`), or set ROUNDTABLE_TOKEN for this process',
  ) {
    super(message);
  }
}

export class KeychainTimeout extends BridgeError {
  readonly code = 'keychain_timeout' as const;
  constructor(
    message: string,
    readonly fix = 'The Secret Service is not answering: restart it (e.g. `pkill gnome-keyring-daemon` and log in again), or set ROUNDTABLE_TOKEN',
  ) {
    super(message);
  }
}

export class TokenFileInsecure extends BridgeError {
  readonly code = 'token_file_insecure' as const;
  constructor(readonly path: string, mode: number) {
    super(`ROUNDTABLE_TOKEN_FILE ${path} has mode ${(mode & 0o777).toString(8)}; it must be readable by you alone (600)`);
  }
  get fix() {
    // Only POSIX checks the mode, so the fix is for sh.
    return `Run \`chmod 600 ${shellArg(this.path, 'linux')}\``;
  }
}

/**
 * Said of a change whose answer was lost: the board may have applied it, and the bridge keeps its idempotency key, so
 * the same call again within the window is applied at most once (unsettled-calls.ts).
 */
function unsettledAdvice(windowMs: number): string {
  return `The board may already have applied this change. Repeating the same call (same tool, same arguments) within ${Math.round(windowMs / 60_000)} minutes is safe: it goes out under the same idempotency key and is applied at most once; a call with other arguments is a new change`;
}

/** A change that may have reached the board: the answer was lost, so nobody knows whether it was applied. */
export interface Unsettled {
  /** The window within which the same call reuses its key; set only on a change whose outcome is unknown. */
  readonly unsettledWindowMs?: number | undefined;
}

export class DaemonUnreachable extends BridgeError implements Unsettled {
  readonly code = 'daemon_unreachable' as const;
  /** `reason` is the system error code, e.g. ECONNREFUSED. */
  constructor(
    readonly url: string,
    readonly reason: string,
    readonly unsettledWindowMs?: number,
  ) {
    super(`the board at ${url} cannot be reached (${reason})`);
  }
  get fix() {
    const check = 'Check that the board is running (`roundtable-bridge status`) and that the URL is right';
    return this.unsettledWindowMs === undefined ? `${check}; this call can be retried once it is back` : `${check}. ${unsettledAdvice(this.unsettledWindowMs)}`;
  }
}

export class TlsUntrusted extends BridgeError {
  readonly code = 'tls_untrusted' as const;
  readonly fix = "If the board uses a private CA, pass --ca FILE (or set NODE_EXTRA_CA_CERTS) with the CA's PEM; never disable verification";
}

export class CallTimeout extends BridgeError implements Unsettled {
  readonly code = 'timeout' as const;
  constructor(
    message: string,
    readonly unsettledWindowMs?: number,
  ) {
    super(message);
  }
  get fix() {
    return this.unsettledWindowMs === undefined ? 'The board may be overloaded; retry the call' : `The board may be overloaded. ${unsettledAdvice(this.unsettledWindowMs)}`;
  }
}

/** Whether an error leaves a change's outcome unknown (see Unsettled). */
export function isUnsettled(error: unknown): error is (CallTimeout | DaemonUnreachable) {
  return (error instanceof CallTimeout || error instanceof DaemonUnreachable) && error.unsettledWindowMs !== undefined;
}

export class BadResponse extends BridgeError {
  readonly code = 'bad_response' as const;
  readonly fix = 'Check that --url points at a Roundtable board (and not at a proxy error page)';
}
