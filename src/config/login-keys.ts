/**
 * The API keys `crow login` keeps, for every door (`crow run`, `crow acp`,
 * the VS Code extension): each under the name of the environment variable
 * its provider reads (ANTHROPIC_API_KEY, …), so a key is used exactly where
 * that variable would be, and a variable set in the environment wins over
 * a stored key.
 *
 * The key itself goes to the OS keychain (os-keychain.ts) where one can be
 * used, else into the record file. The record file, `<data home>/keys/keys.json`,
 * lists what is stored and where (and holds the keys kept in the file): 0600
 * in a 0700 folder, checked as Crow's own before it is read (private-files.ts),
 * replaced whole on each change. A file that is a link, another user's, or
 * readable by others is refused, never read; a damaged one is set aside, not
 * lost, when the next key is saved.
 */
import { join } from 'node:path';
import { renameSync } from 'node:fs';
import { keyProblem } from './key-text';
import { dataHome } from './paths';
import { firstLine, type Keychain, type NoKeychain, osKeychain } from './os-keychain';
import { lstatOrMissing, privateFolderProblem, readPrivateFile, removeEntry, writePrivateFile } from './private-files';

export type KeyPlace = 'keychain' | 'file';

/** A stored key as others may see it: never the key. */
export interface StoredKey {
  /** The environment variable it stands in for. */
  variable: string;
  /** The provider it was stored for (what `crow login` was told). */
  provider: string;
  place: KeyPlace;
}

interface KeyRecord {
  provider: string;
  place: KeyPlace;
  /** The key, when kept in this file. */
  key?: string;
}

interface KeysDocument {
  version: 1;
  keys: Record<string, KeyRecord>;
}

/** The store cannot be used as it is; the message says why and what to do. */
export class LoginKeysError extends Error {
  override name = 'LoginKeysError';
}

/** What saving a key did. */
export interface SavedKey {
  place: KeyPlace;
  /** In words: "the macOS Keychain", or the file's path. */
  where: string;
  /** Why the keychain was not used, when the key went to the file. */
  keychainProblem?: string;
  /** Where a damaged record file was moved, when one was. */
  setAside?: string;
}

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;
const PLACES: readonly KeyPlace[] = ['keychain', 'file'];

export class LoginKeys {
  readonly folder: string;
  readonly file: string;
  private keychainFound: Keychain | NoKeychain | undefined;

  constructor(
    dataHome: string,
    private readonly findKeychain: () => Keychain | NoKeychain = () => osKeychain(),
  ) {
    this.folder = join(dataHome, 'keys');
    this.file = join(this.folder, 'keys.json');
  }

  /** Whether anything was ever stored (one lstat: the doors ask this on every start). */
  any(): boolean {
    return lstatOrMissing(this.file) !== undefined;
  }

  /** What is stored, by variable name. */
  list(): StoredKey[] {
    return Object.entries(this.read().keys)
      .map(([variable, record]) => ({ variable, provider: record.provider, place: record.place }))
      .sort((a, b) => a.variable.localeCompare(b.variable));
  }

  /** The key stored for `variable`; undefined when none is. Throws LoginKeysError when one is recorded but cannot be read. */
  key(variable: string): string | undefined {
    const record = this.read().keys[variable];
    if (!record) return undefined;
    if (record.place === 'file') return record.key;
    const keychain = this.keychain();
    if ('unavailable' in keychain) throw new LoginKeysError(`The key for ${variable} is in the OS keychain, which Crow cannot use now (${keychain.unavailable}). Run CROW_KEYCHAIN=off crow login to keep it in the private file instead, where this program can read it.`);
    let key: string | undefined;
    try {
      key = keychain.get(variable);
    } catch (err) {
      throw new LoginKeysError(`The key for ${variable} is in ${keychain.name}, which did not answer (${firstLine(err)}). Unlock it, or run crow login again.`);
    }
    if (key === undefined) throw new LoginKeysError(`The key for ${variable} is no longer in ${keychain.name} (removed there?). Run crow login again.`);
    const problem = keyProblem(key);
    if (problem !== undefined) throw new LoginKeysError(`The key for ${variable} in ${keychain.name} is not usable: ${problem}. Run crow login again.`);
    return key;
  }

  /** Stores `key` (checked by the caller with keyProblem) for `variable`: in the keychain when it takes it, else in the file. */
  save(variable: string, provider: string, key: string): SavedKey {
    checkVariable(variable);
    const { document, setAside } = this.readForChange();
    const keychain = this.keychain();
    let keychainProblem: string | undefined;
    if ('unavailable' in keychain) keychainProblem = keychain.unavailable;
    else {
      try {
        keychain.set(variable, key);
        // Read back: a keychain that takes a key and forgets it would leave the record pointing at nothing.
        if (keychain.get(variable) !== key) throw new Error('it did not give the key back');
      } catch (err) {
        keychainProblem = firstLine(err);
      }
    }
    if (keychainProblem === undefined) {
      document.keys[variable] = { provider, place: 'keychain' };
      this.write(document);
      return { place: 'keychain', where: (keychain as Keychain).name, ...(setAside ? { setAside } : {}) };
    }
    // A key the keychain held before stays there unless removed: the file's is the one in use now.
    if (!('unavailable' in keychain)) forget(keychain, variable);
    document.keys[variable] = { provider, place: 'file', key };
    this.write(document);
    return { place: 'file', where: this.file, keychainProblem, ...(setAside ? { setAside } : {}) };
  }

  /** Forgets the key of `variable`, wherever it is; what was there (undefined: nothing). */
  remove(variable: string): StoredKey | undefined {
    const document = this.read();
    const record = document.keys[variable];
    if (!record) return undefined;
    if (record.place === 'keychain') this.forgetInKeychain(variable);
    delete document.keys[variable];
    if (Object.keys(document.keys).length === 0) removeEntry(this.file);
    else this.write(document);
    return { variable, provider: record.provider, place: record.place };
  }

  /**
   * Forgets every key: each the record names is removed from the keychain,
   * and the record file is removed whatever it is (a link is removed, not
   * followed). `variables` are tried in the keychain as well, for a record
   * too damaged to name them. What was stored, as far as the record said.
   */
  removeAll(variables: readonly string[] = []): StoredKey[] {
    let stored: StoredKey[] = [];
    try {
      stored = this.list();
    } catch {
      // An unusable record is removed below all the same.
    }
    const inKeychain = new Set([...stored.filter((key) => key.place === 'keychain').map((key) => key.variable), ...variables]);
    const keychain = inKeychain.size > 0 ? this.keychain() : undefined;
    if (keychain && !('unavailable' in keychain)) for (const variable of inKeychain) forget(keychain, variable);
    removeEntry(this.file);
    return stored;
  }

  private keychain(): Keychain | NoKeychain {
    this.keychainFound ??= this.findKeychain();
    return this.keychainFound;
  }

  private forgetInKeychain(variable: string): void {
    const keychain = this.keychain();
    if ('unavailable' in keychain) throw new LoginKeysError(`The key for ${variable} is in the OS keychain, which Crow cannot use now (${keychain.unavailable}); remove the entry "${variable}" of service "crow-agent" there yourself.`);
    try {
      keychain.delete(variable);
    } catch (err) {
      throw new LoginKeysError(`Could not remove the key for ${variable} from ${keychain.name}: ${firstLine(err)}.`);
    }
  }

  /** The record, or an empty one when there is none; throws LoginKeysError for one Crow must not use. */
  private read(): KeysDocument {
    const folderProblem = privateFolderProblem(this.folder);
    if (folderProblem !== undefined) throw new LoginKeysError(`Crow does not keep API keys in a folder others can use: ${folderProblem}.`);
    const read = readPrivateFile(this.file);
    if ('missing' in read) return { version: 1, keys: {} };
    if ('problem' in read) throw new LoginKeysError(unsafeFile(read.problem));
    const document = documentOf(read.bytes.toString('utf8'));
    if (!document) throw new LoginKeysError(`${this.file} is damaged (not a key record Crow wrote). Run crow login to start a new one (the damaged file is kept beside it), or crow logout --all to remove it.`);
    return document;
  }

  /** The record to change: a damaged one is moved aside (nothing is lost), an unsafe one refused. */
  private readForChange(): { document: KeysDocument; setAside?: string } {
    const problem = privateFolderProblem(this.folder, { create: true });
    if (problem !== undefined) throw new LoginKeysError(`Crow does not keep API keys in a folder others can use: ${problem}.`);
    const read = readPrivateFile(this.file);
    if ('missing' in read) return { document: { version: 1, keys: {} } };
    if ('problem' in read) throw new LoginKeysError(unsafeFile(read.problem));
    const document = documentOf(read.bytes.toString('utf8'));
    if (document) return { document };
    const setAside = `${this.file}.damaged-${Date.now()}`;
    renameSync(this.file, setAside);
    return { document: { version: 1, keys: {} }, setAside };
  }

  private write(document: KeysDocument): void {
    writePrivateFile(this.file, `${JSON.stringify(document, null, 2)}\n`);
  }
}

function unsafeFile(problem: string): string {
  return `Crow does not use its API key record: ${problem}. If others could read it, treat the keys in it as seen and replace them at your provider; then run crow logout --all (it removes the file, never what a link points to) and crow login.`;
}

function checkVariable(variable: string): void {
  if (!VARIABLE.test(variable)) throw new LoginKeysError(`"${variable}" is not an environment variable name.`);
}

function forget(keychain: Keychain, variable: string): void {
  try {
    keychain.delete(variable);
  } catch {
    // Nothing was there to forget, or the keychain is locked: the record no longer points at it either way.
  }
}

/** The record in `text` when it is one Crow wrote (anything else: undefined). */
function documentOf(text: string): KeysDocument | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isObject(value) || value.version !== 1 || !isObject(value.keys)) return undefined;
  const keys: Record<string, KeyRecord> = {};
  for (const [variable, record] of Object.entries(value.keys)) {
    if (!VARIABLE.test(variable) || !isObject(record)) return undefined;
    const { provider, place, key } = record;
    if (typeof provider !== 'string' || !PLACES.includes(place as KeyPlace)) return undefined;
    if (place === 'file' && (typeof key !== 'string' || keyProblem(key) !== undefined)) return undefined;
    keys[variable] = place === 'file' ? { provider, place, key: key as string } : { provider, place: 'keychain' };
  }
  return { version: 1, keys };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** The stored keys a door adds to its environment, and what stopped others being read (never a key). */
export interface StoredKeys {
  /** Variable name → key, for variables the environment does not set. */
  keys: Record<string, string>;
  problems: string[];
}

/**
 * The stored keys of the variables `env` leaves unset or empty: a key in
 * the environment always wins. Costs one lstat when nothing was ever
 * stored; the keychain is reached only for a key kept there and needed.
 */
export function storedKeysFor(env: NodeJS.ProcessEnv, store: LoginKeys): StoredKeys {
  if (!store.any()) return { keys: {}, problems: [] };
  const keys: Record<string, string> = {};
  const problems: string[] = [];
  let stored: StoredKey[];
  try {
    stored = store.list();
  } catch (err) {
    return { keys, problems: [(err as Error).message] };
  }
  for (const { variable } of stored) {
    if (env[variable]) continue;
    try {
      const key = store.key(variable);
      if (key !== undefined) keys[variable] = key;
    } catch (err) {
      problems.push((err as Error).message);
    }
  }
  return { keys, problems };
}

/** `env` with the stored keys it lacks (see storedKeysFor), as a new object; what could not be read is in `problems`. */
export function withStoredKeys(env: NodeJS.ProcessEnv, store: LoginKeys = new LoginKeys(dataHome(env))): { env: NodeJS.ProcessEnv; problems: string[] } {
  const { keys, problems } = storedKeysFor(env, store);
  return { env: Object.keys(keys).length > 0 ? { ...env, ...keys } : env, problems };
}
