/**
 * Things made when first used, not when their module loads. Every crow
 * start loads the whole CLI bundle; what a module builds or requires at its
 * top level is paid by every run, also by the ones that never use it (a
 * one-shot `crow run` spawns no process and reads no config file that
 * needs validating).
 */

/** `build()` run at the first call and its value kept; later calls return that value. */
export function onFirstUse<T>(build: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: build() }).value;
}

/** node:child_process (with the UDP and socket modules it pulls in), required at the first spawn. */
export const childProcess = onFirstUse(() => require('node:child_process') as typeof import('node:child_process'));
