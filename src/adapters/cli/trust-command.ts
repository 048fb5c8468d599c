import { describeRequest, projectRequest } from '../../config/folder-trust';
import { TrustStore } from '../../config/trust-store';
import { commandArgs, workspaceFolder } from './cli-args';
import { UsageError, type CliIO } from './cli-io';
import { styleFor } from './terminal-style';

export const TRUST_HELP = `Usage: crow trust [--cwd DIR] [--yes | --no | --revoke] | crow trust --list

A folder's own configuration (.crow/config.toml and .crow/agents/) may
narrow what agents may do; anything that widens it (allows commands or
writes without asking, starts MCP servers or other agents, sends requests,
keys or traces elsewhere) is ignored until you trust the folder. crow run
asks on a terminal; crow acp and editors cannot ask, so trust a folder here.

Shows what the folder asks for and asks whether to trust it. The answer is
kept in your config folder (trusted-folders.json) for exactly what was
shown: if the project later asks for something else, it is untrusted again.

Options:
  --cwd DIR    the folder (default: the current folder)
  --yes        trust it without asking      --no   do not trust it (remembered)
  --revoke     forget the answer: crow run asks again, others ignore the widenings
  --list       every folder with an answer
  -h, --help   show this help`;

export async function trustCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('trust', argv, {
    cwd: { type: 'string' },
    yes: { type: 'boolean', default: false },
    no: { type: 'boolean', default: false },
    revoke: { type: 'boolean', default: false },
    list: { type: 'boolean', default: false },
  });
  if (values.help) {
    io.stdout.write(`${TRUST_HELP}\n`);
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`crow trust takes no arguments; name the folder with --cwd (see crow trust --help).`);
  if ([values.yes, values.no, values.revoke, values.list].filter(Boolean).length > 1) {
    throw new UsageError('Use one of --yes, --no, --revoke and --list (see crow trust --help).');
  }
  const store = new TrustStore(io.env);
  if (values.list) {
    const folders = store.list();
    if (folders.length === 0) io.stdout.write('No folder has an answer yet.\n');
    for (const { folder, answer, at } of folders) io.stdout.write(`${answer === 'trusted' ? 'trusted  ' : 'untrusted'}  ${folder}  (${at})\n`);
    return 0;
  }
  const root = workspaceFolder(io.cwd, values.cwd);
  const request = projectRequest(root, io.env);
  if (values.revoke) {
    io.stdout.write(store.forget(request.folder) ? `Forgot the answer for ${request.folder}.\n` : `There was no answer for ${request.folder}.\n`);
    return 0;
  }
  if (request.widenings.length === 0) {
    io.stdout.write(`Nothing to trust: ${request.folder} asks for nothing beyond your own settings.\n`);
    return 0;
  }
  const style = styleFor(io.stdout, io.env);
  io.stdout.write(`${style.bold(`${request.folder} asks for:`)}\n`);
  for (const line of describeRequest(request)) io.stdout.write(`  • ${line}\n`);
  let trusted = values.yes;
  if (!values.yes && !values.no) {
    if (!io.stdinIsTTY) throw new UsageError('No terminal to ask on: pass --yes to trust the folder, or --no.');
    io.stdout.write('Trust this folder? [y/N] ');
    trusted = /^y(es)?$/i.test(((await io.readLine(new AbortController().signal)) ?? '').trim());
  }
  store.remember(request.folder, request.fingerprint, trusted ? 'trusted' : 'untrusted');
  io.stdout.write(trusted ? `Trusted ${request.folder}.\n` : `Not trusted: ${request.folder}'s widenings stay ignored.\n`);
  return 0;
}

