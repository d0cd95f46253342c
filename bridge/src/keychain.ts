// The OS keychain (Secret Service on Linux, Keychain on macOS, Credential Manager on Windows) through @napi-rs/keyring.
// Every call is bounded in time and its failure is classified, so a locked or stuck keyring is reported, never waited on.
import { KeychainLocked, KeychainTimeout, KeychainUnavailable, type BridgeError } from './errors.js';

export const KEYCHAIN_SERVICE = 'roundtable';
const KEYCHAIN_TIMEOUT_MS = 2_500;

type AsyncEntry = import('@napi-rs/keyring').AsyncEntry;

async function entry(account: string): Promise<AsyncEntry> {
  // Loaded on first use: serving tools/list never pays for the native module.
  const { AsyncEntry } = await import('@napi-rs/keyring');
  // Pin Linux to the Secret Service: the kernel-keyring fallback would hide why the real store failed.
  return new AsyncEntry(KEYCHAIN_SERVICE, account, { linux: { store: 'secret-service' } });
}

/**
 * The library reports every failure with the one code GenericFailure, so the message is all there is to tell
 * a missing service from a locked one.
 */
export function classifyKeychainError(error: unknown): BridgeError {
  const text = String((error as Error)?.message ?? error);
  // D-Bus's NoReply: the Secret Service owns its name but does not answer (e.g. a stopped daemon). Checked first:
  // its text ("...security policy blocked the reply...") contains "locked".
  if (/did not receive a reply|timeout expired|timed out/i.test(text)) {
    return new KeychainTimeout('the keychain did not answer (no reply from the Secret Service on the session bus)');
  }
  if (/\b(locked|unlock)|prompt was dismissed/i.test(text)) return new KeychainLocked('the keychain is locked');
  if (/no such secret collection|collection/i.test(text) && /not found|no such/i.test(text)) {
    return new KeychainLocked('the keychain has no default collection (it was never unlocked or created)');
  }
  return new KeychainUnavailable('no OS keychain can be reached (no Secret Service on this session bus)');
}

async function withinDeadline<T>(run: (signal: AbortSignal) => Promise<T>): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new KeychainTimeout(`the keychain did not answer within ${KEYCHAIN_TIMEOUT_MS / 1000} s`));
    }, KEYCHAIN_TIMEOUT_MS);
    timer.unref();
  });
  try {
    return await Promise.race([
      (async () => {
        try {
          return await run(controller.signal);
        } catch (error) {
          if (controller.signal.aborted) throw new KeychainTimeout(`the keychain did not answer within ${KEYCHAIN_TIMEOUT_MS / 1000} s`);
          throw classifyKeychainError(error);
        }
      })(),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export async function readTokenFromKeychain(account: string): Promise<string | undefined> {
  return withinDeadline(async (signal) => (await (await entry(account)).getPassword(signal)) ?? undefined);
}

export async function storeTokenInKeychain(account: string, token: string): Promise<void> {
  await withinDeadline(async (signal) => (await entry(account)).setPassword(token, signal));
}

export async function deleteTokenFromKeychain(account: string): Promise<boolean> {
  return withinDeadline(async (signal) => (await entry(account)).deletePassword(signal));
}
