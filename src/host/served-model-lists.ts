/**
 * The model lists of a folder's configured providers, as the pickers of
 * every door offer them (see llm/served-models.ts): known ones at once,
 * a refresh awaited only as long as a door can wait.
 */
import type { ServedIds } from '../agents/role-models';
import { providerApiKey } from '../config/provider-config';
import type { Settings } from '../config/settings';
import { refreshServedModels, type ServerAddress, serverAddress, servedModels } from '../llm/served-models';

export interface ServedModelLists {
  /** The ids a provider's server lists, once listed. */
  ids: ServedIds;
  /** Lists the providers' models; whether any list became known. Waits at most `waitMs`. */
  refresh(providers: readonly string[], waitMs: number): Promise<boolean>;
}

export function servedModelLists(settings: Settings, env: NodeJS.ProcessEnv): ServedModelLists {
  const addressOf = (provider: string): ServerAddress | undefined => {
    const entry = settings.providers[provider];
    if (!entry) return undefined;
    let apiKey: string | undefined;
    try {
      apiKey = providerApiKey(entry, env);
    } catch {
      // No key where one is needed: such a server would refuse the listing too.
      return undefined;
    }
    return serverAddress(entry, apiKey);
  };
  return {
    ids: (provider) => {
      const address = addressOf(provider);
      return address ? servedModels(address)?.map((model) => model.id) : undefined;
    },
    async refresh(providers, waitMs) {
      const addresses = providers.flatMap((provider) => addressOf(provider) ?? []).filter((address) => servedModels(address) === undefined);
      if (addresses.length === 0) return false;
      const listed = Promise.all(addresses.map((address) => refreshServedModels(address))).then((lists) => lists.some(Boolean));
      const waited = new Promise<boolean>((resolve) => setTimeout(resolve, waitMs, false).unref());
      return Promise.race([listed, waited]);
    },
  };
}
