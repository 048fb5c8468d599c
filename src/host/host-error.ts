/**
 * Why the host could not start a prompt, in words a person can act on.
 * Front doors map the kind onto their protocol: an ACP error code, a CLI
 * exit status, an error card in the chat.
 * - `busy`: another prompt runs (or is stopping) in the session, or another process has it open.
 * - `unknown-session`: no stored session has the id asked for.
 * - `usage`: the prompt itself is wrong (an unknown or failing slash command).
 * - `auth`: a key the composition needs is missing.
 * - `config`: settings or definitions stop the composition from being built.
 */
export type HostErrorKind = 'busy' | 'unknown-session' | 'usage' | 'auth' | 'config';

export class HostError extends Error {
  override name = 'HostError';

  constructor(
    readonly kind: HostErrorKind,
    message: string,
  ) {
    super(message);
  }
}
