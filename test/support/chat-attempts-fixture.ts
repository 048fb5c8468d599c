/**
 * The set-up the VS Code chat's attempt tests share: one fake model server
 * for the suite, and for each test a home of its own holding the greeter
 * repository (attempts-fixture.ts) with the attempts scripted, the
 * messages the view was sent, and chat controllers on a folder there.
 * Registers its hooks in the calling `describe`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ChatController } from '../../src/adapters/vscode/chat/chat-controller';
import type { ChatHost } from '../../src/adapters/vscode/chat/chat-session';
import { FakeLlmServer } from '../../testkit/fake-llm-server';
import type { HostMessage } from '../../webview/chat/protocol';
import { greeterRepository, scriptAttempts } from './attempts-fixture';
import { folderChatHost } from './chat-host';
import { isolatedEnv } from './isolated-env';
import { quietViewActions } from './view-actions';

export interface ChatAttempts {
  /** The suite's fake model server, reset before each test. */
  readonly server: FakeLlmServer;
  /** This test's home folder (the environment's HOME and XDG folders). */
  readonly home: string;
  /** The greeter repository in it. */
  readonly repo: string;
  /** What the controllers posted to the view, in order; a test may start it over. */
  posted: HostMessage[];
  /** The chat host on `root` (default: the repository), with the fake server as the Anthropic provider. */
  host(root?: string, extra?: Partial<ChatHost>): ChatHost;
  /** A controller on that host, posting into `posted`. */
  controller(root?: string, extra?: Partial<ChatHost>): ChatController;
}

/** Hooks for a suite of chat attempt tests, whose answers end with the judge's `ranking`; homes are made as `prefix`XXXXXX. */
export function chatAttempts(prefix: string, ranking: string): ChatAttempts {
  let server: FakeLlmServer | undefined;
  let home: string | undefined;
  const fixture: ChatAttempts = {
    get server() {
      return server!;
    },
    get home() {
      return home!;
    },
    get repo() {
      return join(home!, 'project');
    },
    posted: [],
    host(root = fixture.repo, extra = {}) {
      const env = isolatedEnv(fixture.home, { ANTHROPIC_API_KEY: 'sk-ant-test-attempts' });
      const settings: Record<string, unknown> = { provider: 'anthropic', baseUrls: { anthropic: fixture.server.anthropicBaseUrl } };
      return folderChatHost(root, env, (key) => settings[key], extra);
    },
    controller(root, extra) {
      return new ChatController(fixture.host(root, extra), (message) => fixture.posted.push(structuredClone(message)), quietViewActions());
    },
  };
  before(async () => (server = await FakeLlmServer.start()));
  after(() => server?.close());
  beforeEach(() => {
    fixture.server.reset();
    home = mkdtempSync(join(tmpdir(), prefix));
    greeterRepository(fixture.repo, { 'README.md': '# Greeter\n' });
    fixture.posted = [];
    scriptAttempts(fixture.server, ranking);
  });
  afterEach(() => rmSync(fixture.home, { recursive: true, force: true, maxRetries: 10, retryDelay: 50 }));
  return fixture;
}
