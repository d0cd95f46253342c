// The OS keychain (Secret Service on Linux, Keychain on macOS, Credential Manager on Windows) through @napi-rs/keyring.
// Every call is bounded in time and its failure is classified, so a locked or stuck keyring is reported, never waited on.
import { KeychainLocked, KeychainTimeout, KeychainUnavailable, type BridgeError } from './errors.js';
import { currentPlatform, type Platform } from './platform.js';

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
 * a missing store from a locked one. Each system's store words its failures its own way, so each is read apart,
 * and the fix named is the one for that system.
 */
export function classifyKeychainError(error: unknown, platform: Platform = currentPlatform()): BridgeError {
  const text = String((error as Error)?.message ?? error);
  if (platform === 'darwin') return classifyMacKeychainError(text);
  if (platform === 'win32') return classifyWindowsCredentialError(text);
  return classifySecretServiceError(text);
}

/** Linux and the other Unixes: the Secret Service over D-Bus. */
function classifySecretServiceError(text: string): BridgeError {
  // D-Bus's NoReply: the Secret Service owns its name but does not answer (e.g. a stopped daemon). Checked first:
  // its text ("...security policy blocked the reply...") contains "locked".
  if (/did not receive a reply|timeout expired|timed out/i.test(text)) {
    return new KeychainTimeout('the keychain did not answer (no reply from the Secret Service on the session bus)');
  }
  if (/\b(locked|unlock)|prompt was dismissed/i.test(text)) return new KeychainLocked('the keychain is locked');
  if (/no such secret collection|collection/i.test(text) && /not found|no such/i.test(text)) {
    return new KeychainLocked('the keychain has no default collection (it was never unlocked or created)');
  }
  // libdbus with no DBUS_SESSION_BUS_ADDRESS (and no bus at XDG_RUNTIME_DIR/bus): there is no session bus to ask.
  if (/autolaunch|DBUS_SESSION_BUS_ADDRESS/i.test(text)) {
    return new KeychainUnavailable(
      'no OS keychain can be reached: DBUS_SESSION_BUS_ADDRESS is not set for this process, so it has no D-Bus session bus on which to find the Secret Service',
      'If `roundtable-bridge status` finds the token in your shell, the agent app starts the bridge with fewer variables: let DBUS_SESSION_BUS_ADDRESS and XDG_RUNTIME_DIR through (Codex: env_vars in the entry, which `roundtable-bridge setup codex` writes). On a headless machine set ROUNDTABLE_TOKEN, or ROUNDTABLE_TOKEN_FILE pointing to a mode-600 file',
    );
  }
  if (/failed to connect to socket|connection refused|no such file or directory/i.test(text)) {
    return new KeychainUnavailable('no OS keychain can be reached: nothing answers at the D-Bus session bus address DBUS_SESSION_BUS_ADDRESS names (the session may have ended)');
  }
  return new KeychainUnavailable('no OS keychain can be reached (no Secret Service on this session bus)');
}

const MAC_UNLOCK = 'Unlock the login keychain in Keychain Access (or `security unlock-keychain login.keychain-db` in Terminal), or set ROUNDTABLE_TOKEN for this process';

/** macOS: the Security framework's errSec* results, by their text or their number. */
function classifyMacKeychainError(text: string): BridgeError {
  // errSecInteractionNotAllowed (-25308): the keychain is locked and no dialog may be shown (e.g. an SSH session).
  if (/interaction is not allowed|-25308/i.test(text)) return new KeychainLocked('the macOS login keychain is locked and cannot ask to be unlocked here', MAC_UNLOCK);
  // errSecAuthFailed (-25293), errSecUserCanceled (-128): the unlock or access dialog was refused.
  if (/\b(locked|unlock)|passphrase|auth(orization|entication)? failed|-25293|canceled|cancelled|-128\b/i.test(text)) {
    return new KeychainLocked('the macOS login keychain is locked, or access to it was refused', MAC_UNLOCK);
  }
  // errSecNoSuchKeychain (-25294), errSecNoDefaultKeychain (-25307), errSecInvalidKeychain (-25295).
  if (/keychain could not be found|no default keychain|no such keychain|invalid keychain|-2529[45]|-25307/i.test(text)) {
    return new KeychainUnavailable(
      'macOS has no usable login keychain for this user',
      'Create or reset the login keychain in Keychain Access (Settings: Reset Default Keychains), or set ROUNDTABLE_TOKEN, or ROUNDTABLE_TOKEN_FILE pointing to a mode-600 file',
    );
  }
  return new KeychainUnavailable(
    'the macOS Keychain could not be used',
    'Check the login keychain in Keychain Access (it must exist and be unlocked), or set ROUNDTABLE_TOKEN, or ROUNDTABLE_TOKEN_FILE pointing to a mode-600 file',
  );
}

/** Windows: Credential Manager (CredRead/CredWrite), by the Win32 error's text or its number. */
function classifyWindowsCredentialError(text: string): BridgeError {
  // ERROR_NO_SUCH_LOGON_SESSION (1312): a service, a scheduled task or an SSH session without a loaded profile.
  if (/logon session|\b1312\b|0x80070520/i.test(text)) {
    return new KeychainUnavailable(
      'Windows Credential Manager cannot be used from this logon session (no loaded user profile, e.g. a service or an SSH session)',
      'Run the bridge in your signed-in Windows session, or set ROUNDTABLE_TOKEN, or ROUNDTABLE_TOKEN_FILE pointing to a file in your user profile',
    );
  }
  if (/access is denied|0x80070005/i.test(text)) {
    return new KeychainLocked(
      'Windows Credential Manager refused access',
      'Open Credential Manager (Control Panel, Windows Credentials) as the same user the agent app runs as, or set ROUNDTABLE_TOKEN for this process',
    );
  }
  return new KeychainUnavailable(
    'Windows Credential Manager could not be used',
    'Check Credential Manager (Control Panel, Windows Credentials) for this user, or set ROUNDTABLE_TOKEN, or ROUNDTABLE_TOKEN_FILE pointing to a file in your user profile',
  );
}

/** A keychain that does not answer in time, with the fix for this system. */
export function keychainTimeout(platform: Platform = currentPlatform()): KeychainTimeout {
  const message = `the keychain did not answer within ${KEYCHAIN_TIMEOUT_MS / 1000} s`;
  if (platform === 'darwin') {
    return new KeychainTimeout(message, 'A Keychain dialog may be waiting behind another window: answer it, or unlock the login keychain in Keychain Access, or set ROUNDTABLE_TOKEN');
  }
  if (platform === 'win32') return new KeychainTimeout(message, 'Windows Credential Manager is not answering: sign out and in again, or set ROUNDTABLE_TOKEN');
  return new KeychainTimeout(message);
}

async function withinDeadline<T>(run: (signal: AbortSignal) => Promise<T>, platform: Platform): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(keychainTimeout(platform));
    }, KEYCHAIN_TIMEOUT_MS);
    timer.unref();
  });
  try {
    return await Promise.race([
      (async () => {
        try {
          return await run(controller.signal);
        } catch (error) {
          if (controller.signal.aborted) throw keychainTimeout(platform);
          throw classifyKeychainError(error, platform);
        }
      })(),
      deadline,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export async function readTokenFromKeychain(account: string, platform: Platform = currentPlatform()): Promise<string | undefined> {
  return withinDeadline(async (signal) => (await (await entry(account)).getPassword(signal)) ?? undefined, platform);
}

export async function storeTokenInKeychain(account: string, token: string, platform: Platform = currentPlatform()): Promise<void> {
  await withinDeadline(async (signal) => (await entry(account)).setPassword(token, signal), platform);
}

export async function deleteTokenFromKeychain(account: string, platform: Platform = currentPlatform()): Promise<boolean> {
  return withinDeadline(async (signal) => (await entry(account)).deletePassword(signal), platform);
}
