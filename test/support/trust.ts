import { projectRequest } from '../../src/config/folder-trust';
import { TrustStore } from '../../src/config/trust-store';

/** Trusts `root` for a user whose config lives where `env` says, as `crow trust --yes` would. */
export function trustFolder(root: string, env: NodeJS.ProcessEnv): void {
  const request = projectRequest(root, env);
  new TrustStore(env).remember(request.folder, request.fingerprint, 'trusted');
}
