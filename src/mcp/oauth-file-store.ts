/**
 * Sign-ins of the CLI and `crow acp`: one JSON file per server (named by a
 * digest of its URL) in `<data home>/mcp-auth/`, the folder 0700 and each
 * file 0600, checked to be the user's own before anything in them is read
 * or written (config/private-files.ts). A folder or file that is not is
 * refused with the reason, never used.
 */
import { join } from 'node:path';
import { lstatOrMissing, privateFolderProblem, readPrivateFile, removeEntry, writePrivateFile } from '../config/private-files';
import { authKey, authRecordName, type McpAuthRecord, type McpTokenStore, recordFor } from './oauth-store';

export class FileTokenStore implements McpTokenStore {
  readonly folder: string;

  constructor(dataHome: string) {
    this.folder = join(dataHome, 'mcp-auth');
  }

  async load(serverUrl: string): Promise<McpAuthRecord | undefined> {
    this.check(false);
    const read = readPrivateFile(this.fileOf(serverUrl));
    if ('missing' in read) return undefined;
    if ('problem' in read) throw new Error(`Crow does not use its MCP sign-in file: ${read.problem}. Remove it, then sign in again.`);
    try {
      return recordFor(serverUrl, JSON.parse(read.bytes.toString('utf8')));
    } catch {
      // A damaged file signs nobody in; the next sign-in replaces it.
      return undefined;
    }
  }

  async save(record: McpAuthRecord): Promise<void> {
    this.check(true);
    writePrivateFile(this.fileOf(record.serverUrl), `${JSON.stringify({ ...record, serverUrl: authKey(record.serverUrl) })}\n`);
  }

  async remove(serverUrl: string): Promise<boolean> {
    const file = this.fileOf(serverUrl);
    const there = lstatOrMissing(file) !== undefined;
    removeEntry(file);
    return there;
  }

  private fileOf(serverUrl: string): string {
    return join(this.folder, `${authRecordName(serverUrl)}.json`);
  }

  private check(create: boolean): void {
    const problem = privateFolderProblem(this.folder, { create });
    if (problem !== undefined) throw new Error(`Crow does not keep MCP sign-ins in a folder others can use: ${problem}.`);
  }
}
