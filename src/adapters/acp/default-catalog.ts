import type { WorkspaceCatalog } from '../../host/catalog';
import { trustCommandFor } from '../../config/folder-trust';
import { openFolder } from '../../host/folder';

/** How an ACP user trusts a folder: nobody can be asked over the protocol, so in a terminal. */
const howToTrust = (cwd: string): string => `To use them, trust the folder in a terminal: ${trustCommandFor(cwd)}.`;

/**
 * The catalog of a session folder for `crow acp`: the folder's settings and
 * definitions, its project configuration taken whole only when the user has
 * trusted the folder (crow trust, or an answer in an interactive crow run).
 */
export function folderCatalog(cwd: string, env: NodeJS.ProcessEnv, dataHome: string): Promise<WorkspaceCatalog> {
  return openFolder({ root: cwd, env, dataHome, trust: { howToTrust: howToTrust(cwd) } });
}
