/**
 * The environment variables Crow reads that are not settings keys (those
 * are the table's `env` and `namedEnv`), and those it sets for the
 * processes it starts. A test keeps these lists equal to what the code reads.
 */
import type { EnvironmentVariable } from './key-types';

export const OTHER_VARIABLES: readonly EnvironmentVariable[] = [
  { name: 'CROW_KEYCHAIN', help: '`off`: crow login keeps keys in its private file, not the OS keychain.' },
  { name: 'CROW_KEEPER', help: '`off` (or `0`): crow run starts no keeper process for the workspace.' },
  { name: 'CROW_KEEPER_IDLE_MS', help: 'How long a keeper waits without a run before it stops (default 15 minutes).' },
  { name: 'CROW_KEEPER_SLOW_MS', help: "How slow a run's own record must be before a keeper is started." },
  { name: 'CROW_BROWSER', help: "A command that opens a URL (sign-in pages), in place of the platform's opener." },
  { name: 'CROW_RG_PATH', help: 'The ripgrep binary to run.' },
  { name: 'CROW_BWRAP_PATH', help: 'The bubblewrap binary the sandbox runs.' },
  { name: 'CROW_GIT_BASH_PATH', help: "Git Bash's bash.exe, on Windows." },
];

/** Set by Crow in the environment of what it starts, never read from yours. */
export const SET_VARIABLES: readonly EnvironmentVariable[] = [
  { name: 'CROW_PROJECT_DIR', help: 'The workspace root, for hooks (as CLAUDE_PROJECT_DIR).' },
  { name: 'CROW_COMMAND_ID', help: 'Marks the processes of one command, so a cancelled command is stopped whole.' },
  { name: 'CROW_RUN_WORDS', help: 'In a Crow terminal of VS Code: the file the command to run is passed in.' },
];
