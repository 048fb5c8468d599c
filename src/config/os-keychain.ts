/**
 * The operating system's keychain, as `crow login` keeps API keys in it:
 * the macOS Keychain, Windows' Credential Manager, or on Linux a Secret
 * Service (GNOME Keyring, KWallet) reached over D-Bus. Reached through
 * `@napi-rs/keyring` (a binding of the keyring crate), required on first
 * use and never bundled: it is a native module, optional in the package,
 * and where it is missing or cannot reach a keychain, keys go to a private
 * file instead (login-keys.ts).
 *
 * On Linux the entry is pinned to the Secret Service: the binding's default
 * falls back to the kernel's keyring, which forgets everything at logout or
 * reboot, so a key kept there would vanish while Crow still said where it was.
 */

/** Where a key is kept in the keychain: this service, the variable's name as the account. */
export const KEYCHAIN_SERVICE = 'crow-agent';

/** A keychain Crow can use; every method throws with the keychain's own reason when it cannot. */
export interface Keychain {
  /** What to call it in a sentence: "the macOS Keychain". */
  readonly name: string;
  get(account: string): string | undefined;
  set(account: string, secret: string): void;
  /** Whether there was one to delete. */
  delete(account: string): boolean;
}

/** No keychain here, and why. */
export interface NoKeychain {
  unavailable: string;
}

/** The keychain of this system, or why there is none to use. `CROW_KEYCHAIN=off` turns it off (keys go to the file). */
export function osKeychain(env: NodeJS.ProcessEnv = process.env): Keychain | NoKeychain {
  if (env.CROW_KEYCHAIN === 'off') return { unavailable: 'CROW_KEYCHAIN=off' };
  let binding: typeof import('@napi-rs/keyring');
  try {
    // Required, not imported: a native module, absent from some installs, loaded only by a sign-in.
    binding = require('@napi-rs/keyring') as typeof import('@napi-rs/keyring');
  } catch (err) {
    return { unavailable: `the keychain module (@napi-rs/keyring) is not installed or does not load here: ${firstLine(err)}` };
  }
  const options = { linux: { store: 'secret-service' as const } };
  const entry = (account: string) => new binding.Entry(KEYCHAIN_SERVICE, account, options);
  return {
    name: keychainName(process.platform),
    get: (account) => entry(account).getPassword() ?? undefined,
    set: (account, secret) => entry(account).setPassword(secret),
    delete: (account) => entry(account).deletePassword(),
  };
}

function keychainName(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'the macOS Keychain';
  if (platform === 'win32') return 'the Windows Credential Manager';
  return 'the Secret Service keyring (GNOME Keyring, KWallet)';
}

/** An error's first line: the binding's messages carry whole cause chains. */
export function firstLine(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.split('\n')[0]!.trim();
}
