/**
 * A real Secret Service for tests of the OS keychain path: a private D-Bus
 * session bus and GNOME Keyring's daemon on it (a login keyring unlocked
 * with a throwaway password, kept under `home`), so `@napi-rs/keyring`
 * talks to the same service as on a Linux desktop without touching the
 * user's own keyring. Needs `dbus-daemon` and `gnome-keyring-daemon`
 * (apt-get install -y gnome-keyring).
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { join } from 'node:path';

const HAVE_KEYRING = process.platform === 'linux' && spawnSync('gnome-keyring-daemon', ['--version']).status === 0 && spawnSync('dbus-daemon', ['--version']).status === 0;
/** Why the keychain tests skip here, or undefined when they can run. */
export const NO_SECRET_SERVICE = HAVE_KEYRING ? undefined : 'no Secret Service to test against (Linux with apt-get install -y gnome-keyring)';

export interface SecretService {
  /** The variables that lead a process to this service. */
  env: { DBUS_SESSION_BUS_ADDRESS: string };
  stop(): void;
}

/** Starts a bus and the keyring daemon for processes whose HOME and XDG_DATA_HOME are under `home`. */
export async function startSecretService(home: string): Promise<SecretService> {
  const [address, pid] = execFileSync('dbus-daemon', ['--session', '--fork', '--print-address=1', '--print-pid=1'], { encoding: 'utf8' }).trim().split('\n');
  const env = { PATH: process.env.PATH, HOME: home, XDG_DATA_HOME: join(home, 'data'), DBUS_SESSION_BUS_ADDRESS: address! };
  const daemon: ChildProcess = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let said = '';
  daemon.stdout!.on('data', (chunk: Buffer) => (said += chunk.toString()));
  daemon.stdin!.end('throwaway-password');
  const deadline = Date.now() + 10_000;
  while (!said.includes('GNOME_KEYRING_CONTROL')) {
    if (Date.now() > deadline || daemon.exitCode !== null) throw new Error(`gnome-keyring-daemon did not start: ${said}`);
    await new Promise((done) => setTimeout(done, 20));
  }
  return {
    env: { DBUS_SESSION_BUS_ADDRESS: address! },
    stop() {
      daemon.kill();
      process.kill(Number(pid));
    },
  };
}
