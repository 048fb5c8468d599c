/**
 * How the file system of a platform reads a path, for the guards that
 * decide "is this inside the workspace?" and "is this a protected folder?".
 * Every guard takes one of these; HOST_PATHS, chosen from
 * process.platform here and nowhere else, is the default.
 *
 * - Linux (posix): names are bytes; nothing is folded.
 * - macOS (darwin): APFS and HFS+ are case-insensitive by default and treat
 *   a name in NFC and NFD as one name, so both are folded before comparing.
 * - Windows (win32): `\` and `/` separate, drive letters and UNC shares are
 *   roots, names are case-insensitive (NTFS's upcase table), a name loses its
 *   trailing dots and spaces, `name:stream` is a stream of `name`, `CON`,
 *   `NUL`, `COM1`... are devices in any folder and with any extension, a
 *   folder also answers to its 8.3 short name (`GIT~1`), and `\\?\` and
 *   `\\.\` prefixes name the same files as the path without them.
 *   Sources: Microsoft, "Naming Files, Paths, and Namespaces" (reserved
 *   names, streams, trailing dots and spaces, short names) and J. Kuhne,
 *   "Path Normalization" (learn.microsoft.com archive: path types, device
 *   paths, trimming).
 *
 * A folder made case-sensitive (`fsutil file setCaseSensitiveInfo` on NTFS,
 * a case-sensitive APFS volume) is still judged case-insensitively: the
 * guards then refuse more, never less (`.GIT` there is another folder, and
 * is protected all the same).
 */
import { posix, win32 } from 'node:path';
import type { PlatformPath } from 'node:path';

export interface PathSemantics {
  readonly name: 'posix' | 'darwin' | 'win32';
  /** Joining, resolving and splitting as the platform does. */
  readonly path: PlatformPath;
  /** Names that differ only in case are one name. */
  readonly foldCase: boolean;
  /** Names that differ only in Unicode normalisation (NFC, NFD) are one name. */
  readonly foldUnicode: boolean;
  /** Windows' name rules: streams, device names, short names, trailing dots and spaces, `\\?\` prefixes. */
  readonly windowsNames: boolean;
}

export const POSIX_PATHS: PathSemantics = { name: 'posix', path: posix, foldCase: false, foldUnicode: false, windowsNames: false };
export const DARWIN_PATHS: PathSemantics = { name: 'darwin', path: posix, foldCase: true, foldUnicode: true, windowsNames: false };
export const WIN32_PATHS: PathSemantics = { name: 'win32', path: win32, foldCase: true, foldUnicode: false, windowsNames: true };

/** The semantics of `platform`'s usual file systems. */
export function pathSemanticsOf(platform: NodeJS.Platform): PathSemantics {
  if (platform === 'win32') return WIN32_PATHS;
  if (platform === 'darwin') return DARWIN_PATHS;
  return POSIX_PATHS;
}

/** The semantics of the machine Crow runs on: the default of every guard. */
export const HOST_PATHS: PathSemantics = pathSemanticsOf(process.platform);

/** `target` without a Windows device prefix (`\\?\C:\x` → `C:\x`, `\\?\UNC\s\share` → `\\s\share`); other paths as they are. */
export function withoutDevicePrefix(target: string, semantics: PathSemantics = HOST_PATHS): string {
  if (!semantics.windowsNames) return target;
  const unc = /^[\\/]{2}[?.][\\/]UNC[\\/]/i.exec(target);
  if (unc) return `\\\\${target.slice(unc[0].length)}`;
  const drive = /^[\\/]{2}[?.][\\/](?=[A-Za-z]:(?:[\\/]|$))/.exec(target);
  return drive ? target.slice(drive[0].length) : target;
}

/** `target` made absolute against `base` (the process's folder when absent), device prefixes dropped from both. */
export function resolveAs(semantics: PathSemantics, base: string | undefined, target: string): string {
  const clean = withoutDevicePrefix(target, semantics);
  return base === undefined ? semantics.path.resolve(clean) : semantics.path.resolve(withoutDevicePrefix(base, semantics), clean);
}

/**
 * A name folded wide, for asking "may this be a protected name?": case
 * (upper then lower, so `ſ` and `ı` meet `S` and `I` as NTFS's upcase table
 * and APFS's folding take them) and Unicode form. It may merge names the
 * file system keeps apart: the check then refuses more, never less.
 */
export function foldName(value: string, semantics: PathSemantics = HOST_PATHS): string {
  const composed = semantics.foldUnicode ? value.normalize('NFC') : value;
  return semantics.foldCase ? composed.toUpperCase().toLowerCase() : composed;
}

/**
 * A path folded narrow, for asking "is this the same folder?": Unicode
 * form, and the case of ASCII letters only. Two paths it makes equal are
 * equal on NTFS and APFS too, so containment never takes a folder outside
 * for the workspace: `C:\worK` with the Kelvin sign, which JavaScript's
 * toLowerCase (and path.win32.relative) takes for `C:\work`, is another
 * folder on NTFS. Names differing in non-ASCII case are told apart, which
 * refuses more.
 */
export function foldPath(value: string, semantics: PathSemantics = HOST_PATHS): string {
  const composed = semantics.foldUnicode ? value.normalize('NFC') : value;
  return semantics.foldCase ? composed.replace(/[A-Z]+/g, (letters) => letters.toLowerCase()) : composed;
}

/** The form of an absolute path two guards compare: resolved, without device prefix, folded narrow. */
export function comparablePath(absolute: string, semantics: PathSemantics = HOST_PATHS): string {
  return foldPath(resolveAs(semantics, undefined, absolute), semantics);
}

/** The root of an absolute path (`/`, `C:\`, `\\server\share\`) and its names. */
function rootAndNames(absolute: string, semantics: PathSemantics): string[] {
  const p = semantics.path;
  const resolved = resolveAs(semantics, undefined, absolute);
  const root = p.parse(resolved).root;
  return [root.replace(/[\\/]+$/, ''), ...resolved.slice(root.length).split(p.sep).filter((name) => name !== '')];
}

/**
 * The names of `target` below `folder` (both absolute), as `target` spells
 * them; [] for the folder itself; undefined when `target` is not inside it
 * (another drive or share, `..` past it, or another folder). Compared name
 * by name with foldPath, never with path.relative (whose win32 form folds
 * case wider than NTFS does).
 */
export function namesWithin(
  folder: string,
  target: string,
  semantics: PathSemantics = HOST_PATHS,
  /** How names are folded: narrow (foldPath) for containment; a protection check passes foldName, which errs the other way. */
  fold: (name: string, semantics: PathSemantics) => string = foldPath,
): string[] | undefined {
  const outer = rootAndNames(folder, semantics);
  const inner = rootAndNames(target, semantics);
  if (inner.length < outer.length) return undefined;
  for (const [index, name] of outer.entries()) {
    if (fold(name, semantics) !== fold(inner[index]!, semantics)) return undefined;
  }
  return inner.slice(outer.length);
}

/** Whether `target` is `folder` or lies inside it, as the two are written (give real paths for a decision). */
export function isWithinAs(semantics: PathSemantics, folder: string, target: string): boolean {
  return namesWithin(folder, target, semantics) !== undefined;
}

/**
 * What the file system takes a name in a path to be, for comparing it with
 * a protected name: folded, the stream after a ":" dropped (Windows),
 * trailing dots and spaces dropped (as Windows does, and everywhere, to
 * refuse more). A name of dots and spaces only is kept as it is.
 */
export function nameKey(name: string, semantics: PathSemantics = HOST_PATHS): string {
  const file = semantics.windowsNames ? name.split(':')[0]! : name;
  const trimmed = file.replace(/[. ]+$/, (tail) => (tail.length === file.length ? tail : ''));
  // Linux keeps today's rule: ASCII lower case only.
  return semantics.foldCase || semantics.foldUnicode ? foldName(trimmed, semantics) : trimmed.toLowerCase();
}

/** Windows' device names (COM and LPT also with a superscript 1, 2 or 3): a file of one of these names (any case, any extension, in any folder) is the device. */
const DEVICE_NAMES = /^(con|prn|aux|nul|conin\$|conout\$|clock\$|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3])$/;

/** Characters no Windows name may hold (besides ":" of a stream and the separators). */
const FORBIDDEN_CHARACTERS = /[<>"|?*\u0000-\u001f]/;

/**
 * Why a name in a workspace path cannot be written on Windows as the file
 * the tool means, or undefined when it can: a device name (`NUL`,
 * `COM1.txt`), a stream (`file.txt:hidden`), a name of dots and spaces only
 * other than `.` and `..`, or a character Windows forbids.
 */
export function windowsNameProblem(name: string): string | undefined {
  if (name.includes(':')) return `"${name}" names a stream of a file (the part after ":"), not a file`;
  const stem = name.replace(/[. ]+$/, '').split('.')[0]!.trimEnd().toLowerCase();
  if (DEVICE_NAMES.test(stem)) return `"${name}" is a device name on Windows (${stem.toUpperCase()}), not a file`;
  if (/^[. ]+$/.test(name) && name !== '.' && name !== '..') return `"${name}" is only dots and spaces, which Windows reads differently`;
  if (FORBIDDEN_CHARACTERS.test(name)) return `"${name}" holds a character Windows does not allow in a name`;
  return undefined;
}

/**
 * Whether `name` may be the 8.3 short name Windows gave a folder called
 * `long` (`GIT~1` for `.git`, `VSCODE~1` for `.vscode`): the first letters
 * of the long name (leading dots dropped) then `~` and a number, or the
 * hashed form Windows uses after four clashes (two letters, four hex digits).
 */
export function mayBeShortName(name: string, long: string): boolean {
  const short = /^([^~.]{1,6})~([1-9][0-9]{0,5})(\.[^.]{0,3})?$/.exec(name);
  if (!short) return false;
  const stem = short[1]!.toLowerCase();
  const letters = long.toLowerCase().replace(/^[. ]+/, '').replace(/[. ]/g, '');
  if (stem.length >= Math.min(2, letters.length) && letters.startsWith(stem)) return true;
  return stem.length === 6 && letters.startsWith(stem.slice(0, 2)) && /^[0-9a-f]{4}$/.test(stem.slice(2));
}
