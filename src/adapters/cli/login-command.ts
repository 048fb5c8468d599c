/**
 * `crow login` and `crow logout`: keeping a provider's API key for every
 * door (crow run, crow acp, the VS Code extension), in the OS keychain or
 * a private file (config/login-keys.ts). The key is asked with the
 * terminal's echo off, or read from stdin for scripts; it is never
 * printed, logged or put in an argument.
 */
import { dataHome } from '../../config/paths';
import { LoginKeys, type StoredKey } from '../../config/login-keys';
import { keyProblem, trimmedKey } from '../../config/key-text';
import { resolveSettings } from '../../config/provider-config';
import type { ProviderEntry, Settings } from '../../config/settings';
import { didYouMean } from '../../vocabulary/did-you-mean';
import { commandArgs, noPositionals, workspaceFolder } from './cli-args';
import { type CliIO, STOP_EXIT_CODES, UsageError } from './cli-io';
import { checkKey } from './key-check';

export const LOGIN_HELP = `Usage: crow login [--provider NAME] [--check]
       crow login --provider NAME --key-stdin [--check]
       crow login --status
       crow logout [--provider NAME | --all]

Keeps a provider's API key for crow run, crow acp and the VS Code extension,
so no environment variable is needed. crow login asks which provider (the
configured ones; default: the default provider), then the key, with nothing
shown as you type or paste it. The key is kept in the OS keychain (macOS
Keychain, Windows Credential Manager, a Secret Service such as GNOME
Keyring) where there is one, else in a file only you can read under the
data folder ($XDG_DATA_HOME/crow-agent/keys/). The output says which.

Where keys are looked for, first found wins: the provider's environment
variable (e.g. ANTHROPIC_API_KEY), then the key crow login stored. In VS
Code, a key set with "Crow: Set API Key" comes before both.

Options:
  --provider NAME   the provider (crow config get provider names the default)
  --key-stdin       read the key from stdin (for scripts): printf %s "$KEY" | crow login --provider NAME --key-stdin
  --check           first make one small request with the key (the provider's
                    model list); the key is stored only if it is accepted
  --status          list the stored keys and where they are (never the keys)
  --all             (logout) forget every stored key
  --cwd DIR         the workspace whose .crow/config.toml also counts
  -h, --help        show this help

Exit codes: 0 done, 1 the key was refused or could not be stored, 2 bad
usage (or no terminal to ask on and no --key-stdin), 130 cancelled.`;

export async function loginCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('login', argv, {
    provider: { type: 'string' },
    'key-stdin': { type: 'boolean', default: false },
    check: { type: 'boolean', default: false },
    status: { type: 'boolean', default: false },
    cwd: { type: 'string' },
  });
  if (values.help) return help(io);
  noPositionals('login', positionals);
  const settings = resolveSettings(workspaceFolder(io.cwd, values.cwd), {}, io.env);
  const store = new LoginKeys(dataHome(io.env));
  if (values.status) return status(store, settings, io);
  const interactive = !values['key-stdin'];
  if (interactive && !io.readTerminalLine) {
    throw new UsageError('crow login needs a terminal to ask for the key, and stdin is not one. In a script, pipe the key: printf %s "$KEY" | crow login --provider NAME --key-stdin');
  }
  const entry = values.provider !== undefined ? providerNamed(settings, values.provider) : interactive ? await askProvider(settings, io) : defaultProvider(settings, io);
  if (!entry) return cancelled(io);
  const variable = entry.apiKeyEnv!;
  let typed: string;
  if (interactive) {
    io.stderr.write(`API key for ${entry.name} (${variable}; nothing is shown as you type or paste; Enter to finish, Ctrl-C to cancel): `);
    const answer = await io.readTerminalLine!({ echo: false });
    if ('cancelled' in answer) return cancelled(io);
    typed = answer.text;
  } else typed = await io.readStdin();
  const key = trimmedKey(typed);
  const problem = keyProblem(key);
  if (problem !== undefined) {
    io.stderr.write(`crow: nothing was stored: ${problem}.\n`);
    return 1;
  }
  if (values.check) {
    const checked = await checkKey(entry, key);
    if (!checked.ok) {
      io.stderr.write(`crow: nothing was stored: ${checked.why}\n`);
      return 1;
    }
    io.stderr.write(`${checked.said}\n`);
  }
  const saved = store.save(variable, entry.name, key);
  if (saved.setAside) io.stderr.write(`crow: the key record was damaged; it is kept as ${saved.setAside}.\n`);
  const where =
    saved.place === 'keychain'
      ? `in ${saved.where}`
      : `in ${saved.where}, a file only you can read (no OS keychain to use: ${saved.keychainProblem})`;
  io.stdout.write(`Stored the API key for provider "${entry.name}" (${variable}) ${where}.\n`);
  if (io.env[variable]) io.stdout.write(`Note: ${variable} is set in this environment, and a key in the environment wins over the stored one.\n`);
  return 0;
}

export async function logoutCommand(argv: string[], io: CliIO): Promise<number> {
  const { values, positionals } = commandArgs('logout', argv, { provider: { type: 'string' }, all: { type: 'boolean', default: false }, cwd: { type: 'string' } });
  if (values.help) return help(io);
  noPositionals('logout', positionals);
  if (values.all && values.provider !== undefined) throw new UsageError('crow logout takes --provider NAME or --all, not both.');
  const settings = resolveSettings(workspaceFolder(io.cwd, values.cwd), {}, io.env);
  const store = new LoginKeys(dataHome(io.env));
  if (values.all) {
    const variables = Object.values(settings.providers).flatMap((entry) => entry.apiKeyEnv ?? []);
    const removed = store.removeAll(variables);
    io.stdout.write(removed.length > 0 ? `Forgot ${removed.length} stored API key${removed.length === 1 ? '' : 's'}: ${removed.map(named).join(', ')}.\n` : 'No API keys were stored; the key record is gone.\n');
    return 0;
  }
  const entry = values.provider !== undefined ? providerNamed(settings, values.provider) : defaultProvider(settings, io);
  const removed = store.remove(entry.apiKeyEnv!);
  io.stdout.write(removed ? `Forgot the API key of provider "${entry.name}" (${removed.variable}, ${placeWords(removed)}).\n` : `No API key was stored for provider "${entry.name}" (${entry.apiKeyEnv}).\n`);
  if (io.env[entry.apiKeyEnv!]) io.stdout.write(`Note: ${entry.apiKeyEnv} is still set in this environment, and crow uses it.\n`);
  return 0;
}

function status(store: LoginKeys, settings: Settings, io: CliIO): number {
  const stored = store.list();
  if (stored.length === 0) {
    io.stdout.write('No API keys stored. crow login stores one.\n');
    return 0;
  }
  for (const key of stored) {
    const providers = Object.values(settings.providers).filter((entry) => entry.apiKeyEnv === key.variable).map((entry) => entry.name);
    const users = providers.length > 0 ? providers.join(', ') : `${key.provider}, not configured now`;
    const shadowed = io.env[key.variable] ? `; ${key.variable} is set in this environment, which wins` : '';
    io.stdout.write(`${key.variable} (${users}): ${key.place === 'keychain' ? 'in the OS keychain (service "crow-agent")' : `in ${store.file}`}${shadowed}\n`);
  }
  return 0;
}

/** The providers a key can be stored for: those that read one from a variable. */
function keyedProviders(settings: Settings): ProviderEntry[] {
  return Object.values(settings.providers).filter((entry) => entry.apiKeyEnv !== undefined);
}

function providerNamed(settings: Settings, name: string): ProviderEntry {
  const entry = settings.providers[name];
  if (entry?.apiKeyEnv !== undefined) return entry;
  if (entry) throw new UsageError(`Provider "${name}" reads no API key (it has no api_key_env): there is nothing to store for it.`);
  const names = keyedProviders(settings).map((provider) => provider.name);
  const guess = didYouMean(name, names);
  throw new UsageError(`Unknown provider "${name}". Providers with an API key: ${names.join(', ')}.${guess ? ` Did you mean "${guess}"?` : ''}`);
}

function defaultProvider(settings: Settings, io: CliIO): ProviderEntry {
  const entry = providerNamed(settings, settings.provider);
  io.stderr.write(`Provider: ${entry.name} (the default; --provider NAME picks another).\n`);
  return entry;
}

/** Asks which provider on the terminal; undefined when cancelled. */
async function askProvider(settings: Settings, io: CliIO): Promise<ProviderEntry | undefined> {
  const choices = keyedProviders(settings);
  const first = Math.max(0, choices.findIndex((entry) => entry.name === settings.provider));
  io.stderr.write('Which provider is the key for?\n');
  choices.forEach((entry, i) => io.stderr.write(`  ${i + 1}) ${entry.name} (${entry.type}, ${entry.apiKeyEnv})${i === first ? ' — the default' : ''}\n`));
  for (;;) {
    io.stderr.write(`Provider [${first + 1}]: `);
    const answer = await io.readTerminalLine!({ echo: true });
    if ('cancelled' in answer) return undefined;
    const text = answer.text.trim();
    if (text === '') return choices[first];
    const picked = /^\d+$/.test(text) ? choices[Number(text) - 1] : choices.find((entry) => entry.name === text);
    if (picked) return picked;
    io.stderr.write(`"${text.slice(0, 40)}" is none of them: type a number from 1 to ${choices.length}, or a name.\n`);
  }
}

function cancelled(io: CliIO): number {
  io.stderr.write('crow: cancelled; nothing was stored.\n');
  return STOP_EXIT_CODES.SIGINT;
}

function help(io: CliIO): number {
  io.stdout.write(`${LOGIN_HELP}\n`);
  return 0;
}

function named(key: StoredKey): string {
  return `${key.variable} (${placeWords(key)})`;
}

function placeWords(key: StoredKey): string {
  return key.place === 'keychain' ? 'from the OS keychain' : 'from the key file';
}
