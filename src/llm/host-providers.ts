/**
 * Providers that only a front door can make: the models VS Code offers its
 * extensions are reached through the `vscode` API, which exists only inside
 * VS Code's extension host. The door registers a factory for its kind when
 * it starts; everywhere else a provider of that kind is a configuration
 * error that says where it works.
 */
import type { ProviderConnection } from '../config/provider-config';
import { ConfigError } from '../config/settings';
import type { Provider } from './types';

/** The provider kinds a front door supplies (settings-file's PROVIDER_KINDS that no SDK here speaks). */
export type HostProviderKind = 'vscode';

/** What a door needs to build a provider: the connection (its entry, model) and whether images are sent, as settled from the settings. */
export type HostProviderFactory = (connection: ProviderConnection, options: { supportsImages: boolean | undefined }) => Provider;

const factories = new Map<HostProviderKind, HostProviderFactory>();

/** Where each kind works, for the error outside it. */
const WHERE: Record<HostProviderKind, string> = {
  vscode: "only in Crow's VS Code extension (it runs on the language models VS Code offers, such as Copilot's)",
};

/** Makes `factory` the maker of `kind`'s providers in this process; the returned function takes it back. */
export function registerHostProvider(kind: HostProviderKind, factory: HostProviderFactory): () => void {
  factories.set(kind, factory);
  return () => {
    if (factories.get(kind) === factory) factories.delete(kind);
  };
}

/** The provider for a connection of a door's kind; a ConfigError saying where it works when no door registered one. */
export function hostProvider(kind: HostProviderKind, connection: ProviderConnection, supportsImages: boolean | undefined): Provider {
  const factory = factories.get(kind);
  if (factory) return factory(connection, { supportsImages });
  const name = connection.entry.name;
  throw new ConfigError(
    `Provider "${name}" is of type "${kind}", which works ${WHERE[kind]}. Here, pick another provider (--provider, CROW_PROVIDER, or provider = "..." in config.toml), or run this agent from VS Code.`,
  );
}
