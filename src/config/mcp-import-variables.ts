/**
 * The variables other tools' MCP configuration files hold, filled in as
 * those tools fill them in, or a problem saying why Crow cannot. Claude
 * Desktop's file has none: its values are used as written.
 */
import { basename, sep } from 'node:path';

/** A value filled in, or why it cannot be. */
export type Filled = { text: string } | { problem: string };

/** `${NAME}` or `${NAME:-default}`, as Claude Code writes them. */
const CLAUDE_VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * Claude Code's expansion in a project's `.mcp.json`
 * (https://code.claude.com/docs/en/mcp, "Environment variable expansion in
 * .mcp.json"): `${VAR}` is the variable's value, `${VAR:-default}` the
 * default when it is unset. An unset variable without a default is a
 * problem (Claude Code refuses such a file); `$VAR` stays as written.
 */
export function claudeCodeText(text: string, env: NodeJS.ProcessEnv): Filled {
  let problem: string | undefined;
  const filled = text.replace(CLAUDE_VARIABLE, (written, name: string, fallback: string | undefined) => {
    const value = env[name];
    if (value !== undefined) return value;
    if (fallback !== undefined) return fallback;
    problem ??= `it uses \${${name}}, and the environment variable ${name} is not set (set it, or write \${${name}:-default})`;
    return written;
  });
  return problem !== undefined ? { problem } : { text: filled };
}

/** What VS Code's variables stand for in one session: its folder, the home folder, our environment. */
export interface VscodeContext {
  env: NodeJS.ProcessEnv;
  /** The session's workspace folder, for ${workspaceFolder} (in the user's file too). */
  root: string;
  home: string;
  /** The file's `inputs` by id, with their descriptions: what VS Code would ask the person for. */
  inputs: ReadonlyMap<string, string>;
}

const VSCODE_VARIABLE = /\$\{([^}]*)\}/g;

/**
 * VS Code's variables in an `mcp.json` (https://code.visualstudio.com/docs/reference/variables-reference
 * and the MCP configuration reference, https://code.visualstudio.com/docs/copilot/reference/mcp-configuration):
 * `${env:NAME}` (empty when unset, as in VS Code), `${workspaceFolder}`,
 * `${workspaceFolderBasename}`, `${userHome}`, `${pathSeparator}` and `${/}`.
 * `${input:ID}` is something VS Code asks the person for when the server
 * starts; Crow has nobody to ask then, so it is a problem naming the input.
 * Any other variable (`${config:…}`, `${command:…}`) only VS Code can fill.
 */
export function vscodeText(text: string, context: VscodeContext): Filled {
  let problem: string | undefined;
  const filled = text.replace(VSCODE_VARIABLE, (written, inner: string) => {
    const value = vscodeVariable(inner, context);
    if (typeof value === 'string') return value;
    problem ??= value.problem;
    return written;
  });
  return problem !== undefined ? { problem } : { text: filled };
}

function vscodeVariable(inner: string, context: VscodeContext): string | { problem: string } {
  if (inner.startsWith('env:')) return context.env[inner.slice(4)] ?? '';
  switch (inner) {
    case 'workspaceFolder':
      return context.root;
    case 'workspaceFolderBasename':
      return basename(context.root);
    case 'userHome':
      return context.home;
    case 'pathSeparator':
    case '/':
      return sep;
  }
  if (inner.startsWith('input:')) {
    const id = inner.slice(6);
    const described = context.inputs.get(id);
    const what = described !== undefined ? `input "${id}" (${described})` : `input "${id}", which its inputs do not define`;
    return {
      problem: `it needs the ${what}, which VS Code asks you for when the server starts and Crow cannot ask; put the value in an environment variable and write \${env:NAME} instead, or configure the server in Crow's own [mcp_servers]`,
    };
  }
  return { problem: `it uses \${${inner}}, which only VS Code can fill in; write the value itself, or \${env:NAME}` };
}

/**
 * The variables of a dotenv file, as VS Code's `envFile` reads them:
 * `NAME=value` lines, `export ` before the name allowed, `#` comments and
 * blank lines skipped, a value in matching quotes taken without them.
 */
export function envFileVariables(text: string): Record<string, string> {
  const variables: Record<string, string> = {};
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*?)\s*$/.exec(line);
    if (!match || line.trimStart().startsWith('#')) continue;
    const value = match[2]!;
    const quoted = /^(["'])(.*)\1$/.exec(value);
    variables[match[1]!] = quoted ? quoted[2]! : value.replace(/\s+#.*$/, '');
  }
  return variables;
}
