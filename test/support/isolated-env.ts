import { join } from 'node:path';

/**
 * An environment for a crow child process whose config, data and state all
 * live under `home` (nothing of the user's own leaks in or out), plus `extra`.
 */
export function isolatedEnv(home: string, extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: join(home, 'config'),
    XDG_DATA_HOME: join(home, 'data'),
    XDG_STATE_HOME: join(home, 'state'),
    // A run whose undo record is slow (a loaded machine) would leave a folder keeper behind, outliving the test:
    // the tests of the keeper, and the bench, turn it back on (CROW_KEEPER: undefined).
    CROW_KEEPER: 'off',
    ...extra,
  };
}
