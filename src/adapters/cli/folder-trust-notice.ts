import { decideTrust, trustCommandFor, untrustedNotice } from '../../config/folder-trust';
import type { CliIO } from './cli-io';

/**
 * Whether the folder's own configuration counts, for commands that show
 * settings or agents: as the user last answered (nobody is asked here); when
 * parts of it are left out, a line on stderr says which and how to trust it.
 */
export async function trustedFolder(root: string, io: CliIO): Promise<boolean> {
  let decision: Awaited<ReturnType<typeof decideTrust>>;
  try {
    decision = await decideTrust(root, { env: io.env });
  } catch {
    // Unreadable settings: the command itself reports them (validate lists every problem).
    return false;
  }
  const notice = untrustedNotice(decision, `To use them: ${trustCommandFor(root)}.`);
  if (notice) io.stderr.write(`crow: ${notice}\n`);
  return decision.trusted;
}
