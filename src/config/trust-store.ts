/**
 * The user's answers about trusting folders, in their own config folder
 * (`trusted-folders.json`, private to the user). An answer holds for the
 * widenings the person was shown: when a project starts asking for
 * something else, the folder is untrusted again until they answer anew.
 * Folders are matched as the file system compares paths (path-semantics.ts):
 * on Windows and macOS an answer for `C:\Work` holds for `c:\work`; where
 * two spellings hold different answers, the stricter wins.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { configHome } from './paths';
import { foldPath, HOST_PATHS, type PathSemantics, withoutDevicePrefix } from '../vocabulary/path-semantics';

export type TrustAnswer = 'trusted' | 'untrusted';

/** What the store says about a folder's current widenings. */
export type TrustLookup = TrustAnswer | 'changed' | 'unknown';

interface FolderEntry {
  answer: TrustAnswer;
  /** wideningFingerprint of what the person was shown. */
  fingerprint: string;
  /** ISO time of the answer. */
  at: string;
}

interface TrustFile {
  version: 1;
  folders: Record<string, FolderEntry>;
}

const FILE_NAME = 'trusted-folders.json';

export class TrustStore {
  readonly path: string;

  constructor(
    env: NodeJS.ProcessEnv = process.env,
    private readonly semantics: PathSemantics = HOST_PATHS,
  ) {
    this.path = join(configHome(env), FILE_NAME);
  }

  /** The answer for `folder` (a real, absolute path) given what it asks for now. */
  lookup(folder: string, fingerprint: string): TrustLookup {
    const entries = this.entriesFor(this.read(), folder);
    const current = entries.filter((entry) => entry.fingerprint === fingerprint);
    if (current.length > 0) return current.some((entry) => entry.answer === 'untrusted') ? 'untrusted' : 'trusted';
    return entries.length > 0 ? 'changed' : 'unknown';
  }

  remember(folder: string, fingerprint: string, answer: TrustAnswer): void {
    const file = this.read();
    for (const key of this.keysFor(file, folder)) delete file.folders[key];
    file.folders[folder] = { answer, fingerprint, at: new Date().toISOString() };
    this.write(file);
  }

  /** Forgets the answer for `folder` (every spelling of it); true when there was one. */
  forget(folder: string): boolean {
    const file = this.read();
    const keys = this.keysFor(file, folder);
    if (keys.length === 0) return false;
    for (const key of keys) delete file.folders[key];
    this.write(file);
    return true;
  }

  /** The keys of `file` that name `folder` as the file system reads paths. */
  private keysFor(file: TrustFile, folder: string): string[] {
    const wanted = this.key(folder);
    return Object.keys(file.folders).filter((key) => key === folder || this.key(key) === wanted);
  }

  private entriesFor(file: TrustFile, folder: string): FolderEntry[] {
    return this.keysFor(file, folder).map((key) => file.folders[key]!);
  }

  private key(folder: string): string {
    return foldPath(withoutDevicePrefix(folder, this.semantics), this.semantics);
  }

  /** Every folder with an answer, by path. */
  list(): { folder: string; answer: TrustAnswer; at: string }[] {
    return Object.entries(this.read().folders)
      .map(([folder, entry]) => ({ folder, answer: entry.answer, at: entry.at }))
      .sort((a, b) => a.folder.localeCompare(b.folder));
  }

  private read(): TrustFile {
    let text: string;
    try {
      text = readFileSync(this.path, 'utf8');
    } catch {
      return { version: 1, folders: {} };
    }
    try {
      const parsed = JSON.parse(text) as Partial<TrustFile>;
      const folders: Record<string, FolderEntry> = {};
      for (const [folder, entry] of Object.entries(parsed.folders ?? {})) {
        if (isEntry(entry)) folders[folder] = entry;
      }
      return { version: 1, folders };
    } catch {
      // A damaged file trusts nothing; the next answer rewrites it.
      return { version: 1, folders: {} };
    }
  }

  private write(file: TrustFile): void {
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${JSON.stringify(file, null, 2)}\n`, { mode: 0o600 });
    renameSync(temporary, this.path);
  }
}

function isEntry(value: unknown): value is FolderEntry {
  const entry = value as Partial<FolderEntry> | null;
  return (
    entry !== null &&
    typeof entry === 'object' &&
    (entry.answer === 'trusted' || entry.answer === 'untrusted') &&
    typeof entry.fingerprint === 'string' &&
    typeof entry.at === 'string'
  );
}
