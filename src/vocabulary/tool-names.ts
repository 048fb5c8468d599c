/**
 * The names of the built-in tools, for checking agent definitions without
 * loading the tools themselves (the configuration layer sits below them).
 * tools/registry.ts builds the tools; a test keeps the two lists equal.
 */

/** The tool only whoever may end the task calls. */
export const TASK_COMPLETE = 'task_complete';

/** The tool that starts a subagent. */
export const TASK = 'task';

export const BUILTIN_TOOL_NAMES: readonly string[] = [
  'read_file',
  'write_file',
  'edit_file',
  'list_directory',
  'glob',
  'grep',
  'bash',
  'web_fetch',
  'web_search',
  'todo_write',
  'todo_read',
  TASK,
  'think',
  'request_approval',
  TASK_COMPLETE,
];
