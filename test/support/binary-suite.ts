/**
 * The set-up of a suite that drives the real binary against the fake model
 * server: one server for the suite, reset before each test, and per test a
 * fresh folder holding a home (`home`) and a workspace (`root`), removed
 * after it. Read the fields inside tests (they change per test).
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeLlmServer } from '../../testkit/fake-llm-server';

export interface BinarySuite {
  readonly llm: FakeLlmServer;
  /** The test's folder: `home` and `root` are in it. */
  readonly base: string;
  readonly home: string;
  readonly root: string;
}

export function binarySuite(name: string): BinarySuite {
  const suite = {} as { llm: FakeLlmServer; base: string; home: string; root: string };
  before(async () => (suite.llm = await FakeLlmServer.start()));
  after(() => suite.llm.close());
  beforeEach(() => {
    suite.llm.reset();
    suite.base = realpathSync(mkdtempSync(join(tmpdir(), `crow-${name}-`)));
    suite.home = join(suite.base, 'home');
    suite.root = join(suite.base, 'ws');
    mkdirSync(suite.home);
    mkdirSync(suite.root);
  });
  afterEach(() => rmSync(suite.base, { recursive: true, force: true, maxRetries: 5, retryDelay: 50 }));
  return suite;
}
