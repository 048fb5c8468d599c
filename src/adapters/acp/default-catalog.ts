import type { WorkspaceCatalog } from '../../host/catalog';
import { openFolder } from '../../host/folder';

/** How an ACP user trusts a folder: nobody can be asked over the protocol, so in a terminal. */
const HOW_TO_TRUST = 'To use them, trust the folder in a terminal: crow trust --cwd <folder>.';

/**
 * The catalog of a session folder for `crow acp`: the folder's settings and
 * definitions, its project configuration taken whole only when the user has
 * trusted the folder (crow trust, or an answer in an interactive crow run).
 */
export function folderCatalog(cwd: string, env: NodeJS.ProcessEnv, dataHome: string): Promise<WorkspaceCatalog> {
  return openFolder({ root: cwd, env, dataHome, trust: { howToTrust: HOW_TO_TRUST } });
}
