/**
 * What a HostSession builds its ACPSession with and keeps a hand on: the
 * permission gate (the folder's policy, the door's asking, forced rules,
 * approval caps, protected paths), the undo recording (its git sees no
 * credential) and the trace with the folder's redactor.
 */
import { withoutSecrets } from '../config/secret-variables';
import { SessionUndo } from '../journal/session-undo';
import type { SessionDependencies } from '../session/session-store';
import { Redactor } from '../telemetry/redact';
import { TraceRecorder } from '../telemetry/trace-recorder';
import { AutoApproveCaps, PermissionGate } from '../tools/permissions';
import { protectedPathsFor } from '../tools/protected-paths';
import { platformWithoutSandbox } from '../tools/sandbox-probe';
import type { WorkspaceCatalog } from './catalog';
import type { HostSessionOptions } from './session-options';

/** What a session runs with that the host keeps a hand on: the approval caps and the undo recording, typed. */
export interface SessionParts {
  caps: AutoApproveCaps;
  undo: SessionUndo | undefined;
  /** The permission gate, undo recording and trace the ACPSession is built with. */
  dependencies: SessionDependencies;
}

export function sessionParts(options: HostSessionOptions, catalog: WorkspaceCatalog): SessionParts {
  const caps = new AutoApproveCaps({});
  // Where no sandbox can exist (Windows, macOS), every command is asked; a workspace whose commands run elsewhere (a container) says it is sandboxed.
  const noSandbox = options.workspace.sandboxed ? undefined : platformWithoutSandbox();
  const permissions = new PermissionGate({
    policy: catalog.permissionPolicy(),
    ...(options.ask ? { ask: options.ask } : {}),
    ...(options.howToAllow ? { howToAllow: options.howToAllow } : {}),
    forced: options.forced ?? {},
    caps,
    protectedPaths: protectedPathsFor(options.workspace.root, options.env),
    ...(noSandbox !== undefined ? { noSandbox } : {}),
  });
  // Crow's git for undo sees no credential, the settings' key variables included.
  const hidden = catalog.sandbox?.()?.options.hiddenVariables ?? [];
  const undo = options.undo ? new SessionUndo({
        root: options.workspace.root,
        dataHome: options.undo.dataHome,
        env: withoutSecrets(options.undo.env, hidden),
        ...(options.undo.keeper ? { keeper: options.undo.keeper } : {}),
      }) : undefined;
  const redactor = catalog.redactor?.() ?? new Redactor(options.env);
  return { caps, undo, dependencies: { permissions, trace: new TraceRecorder([], redactor), redactor, ...(undo ? { undo } : {}) } };
}
