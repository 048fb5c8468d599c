/** `crow config list` and `crow config explain KEY`: the configuration table, as a person asks about it. */
import { FILE_KEYS, rowOf, schemaOf } from '../../config/config-keys';
import { joinPath } from '../../config/config-problems';
import { defaultText, trustText, valueText } from '../../config/keys/describe-key';
import { ConfigError } from '../../config/settings';
import type { CliIO } from './cli-io';

/** Every key of config.toml with its one line of help. */
export function listKeys(io: CliIO): number {
  const width = Math.max(...FILE_KEYS.map((row) => row.key.length));
  for (const row of FILE_KEYS) io.stdout.write(`${row.key.padEnd(width)}  ${row.help}\n`);
  return 0;
}

/** One key: its help, the values it takes, its default, what an untrusted project may do, its VS Code setting and variable. */
export function explainKey(path: readonly string[], io: CliIO): number {
  const row = rowOf(path);
  if (!row) throw new ConfigError(`Unknown setting "${joinPath(path)}". crow config list shows the keys.`);
  const lines = [
    `${row.key}: ${row.help}`,
    `  value:       ${valueText(schemaOf(row))}`,
    `  default:     ${defaultText(row) || 'none'}`,
    `  project:     ${trustText(row.trust)} (a .crow/config.toml, until the folder is trusted)`,
    `  VS Code:     ${row.vscode ? `crow.${row.vscode.name}` : 'none'}`,
    `  environment: ${row.env ?? (row.namedEnv ? Object.entries(row.namedEnv.variables).map(([name, variable]) => `${variable} (${name}.${row.namedEnv!.field})`).join(', ') : 'none')}`,
  ];
  for (const [value, { help }] of Object.entries(row.values ?? {})) lines.push(`  ${value}: ${help}`);
  io.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
