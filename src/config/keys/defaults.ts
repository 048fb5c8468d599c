/**
 * The defaults of settings that code elsewhere applies (the loop, the retry
 * policy, the sandbox, undo): declared here, beside the table that
 * documents them (config-keys.ts), and imported by the code that uses them.
 */

/** The provider used when no file, variable or flag names one. */
export const DEFAULT_PROVIDER = 'anthropic';

/** The ACP agent a front door picks when the user names none. */
export const DEFAULT_AGENT = 'build';

/** Model calls per agent turn. */
export const DEFAULT_MAX_ITERATIONS = 50;

/** The same tool call this many times in a row stops the turn. */
export const DEFAULT_DOOM_LOOP_THRESHOLD = 3;

/** Retries of a failed model call, and how long a stream may stay silent. */
export const DEFAULT_MAX_RETRIES = 4;
export const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

/** Whether commands run in the sandbox when no file says. */
export const DEFAULT_SANDBOX_MODE = 'auto';

/** The size of the sandbox's private /tmp when no file says (megabytes). */
export const DEFAULT_SANDBOX_TMP_SIZE_MB = 1024;

/** The ports commands reach through Crow's proxy when no file says: HTTPS and HTTP. */
export const DEFAULT_SANDBOX_PORTS: readonly number[] = [443, 80];

/** How long a command waits for the undo snapshot when no file says. */
export const DEFAULT_UNDO_TRACK_TIMEOUT_MS = 5_000;
