import { Readable, Writable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import * as acp from '@agentclientprotocol/sdk';
import { version } from '../../../package.json';
import { dataHome } from '../../config/paths';
import { type AcpLogger, captureConsole, createAcpLogger, logFolder } from '../acp/acp-log';
import { createAcpServer, type SessionSetup } from '../acp/acp-server';
import { missingApiKeys } from '../acp/default-keys';
import { MAX_ACP_MESSAGE_BYTES, MAX_ACP_MESSAGE_TEXT } from '../acp/message-limit';
import type { Redactor } from '../../telemetry/redact';
import { commandArgs, noPositionals } from './cli-args';
import { type CliIO, STOP_EXIT_CODES, type StopSignal } from './cli-io';

export const ACP_HELP = `Usage: crow acp

Serves the Agent Client Protocol (ACP v1) on stdin and stdout, so editors
such as Zed and JetBrains IDEs, and any ACP client, can run Crow's agents.
Start it from the client, not by hand: stdout carries only the protocol.

Keys come from the environment the client starts crow with
(ANTHROPIC_API_KEY or OPENAI_API_KEY, and CROW_PROVIDER, CROW_MODEL,
ANTHROPIC_BASE_URL / OPENAI_BASE_URL), else from crow login, which the
client may run in a terminal (its auth method "crow-login"; crow acp login
is the same command). Sessions are stored under the data
folder (see crow sessions); logs go to stderr and to
$XDG_STATE_HOME/crow-agent/logs/ (default ~/.local/state/crow-agent/logs/).

It exits when the client closes its input (exit code 0), or on Ctrl-C,
SIGTERM or SIGHUP (130, 143, 129) after cancelling every prompt and
stopping every command its agents run. A message longer than ${MAX_ACP_MESSAGE_TEXT}
(a line without an end) closes the connection, with a message on stderr
(exit code 1).`;

/** How long commands get after SIGTERM, when a stop signal ends the server, before SIGKILL. */
const COMMAND_STOP_GRACE_MS = 1_000;

/** Serves ACP on stdio until the client closes the connection or a stop signal arrives. */
export async function acpCommand(argv: string[], io: CliIO): Promise<number> {
  if (argv[0] === 'login') {
    // The terminal auth method's args appended to the agent's command (see loginMethod in acp-server.ts).
    const { loginCommand } = require('./login-command') as typeof import('./login-command');
    return loginCommand(argv.slice(1), io);
  }
  const { values, positionals } = commandArgs('acp', argv, {});
  if (values.help) {
    io.stdout.write(`${ACP_HELP}\n`);
    return 0;
  }
  noPositionals('acp', positionals);
  const logger = createAcpLogger(io.env, io.stderr);
  const restoreConsole = captureConsole(logger);
  const stopLoggingRejections = logRejections(logger);
  try {
    const keys = keyEnvironment(io.env, logger);
    const server = createAcpServer({
      sessions: () => sessionSetup(keys.env, keys.logger),
      forks: true,
      missingKeys: (when) => missingApiKeys(io.cwd, when === 'initialize' ? keys.presumed() : keys.env),
      refreshKeys: () => keys.refresh(),
      loginCommand: { command: process.execPath, args: [...process.execArgv, process.argv[1] ?? 'crow', 'login'] },
      logger: keys.logger,
      version,
    });
    const input = Readable.toWeb(process.stdin) as WebReadableStream<Uint8Array>;
    const connection = server.connect(
      acp.ndJsonStream(Writable.toWeb(io.stdout), input as ReadableStream<Uint8Array>, { maxMessageBytes: MAX_ACP_MESSAGE_BYTES }),
    );
    logger.log('info', `crow acp ${version} serving on stdio`, { pid: process.pid, logs: logFolder(io.env) });
    let stoppedBy: StopSignal | undefined;
    const stopListening = io.onInterrupt((signal) => {
      stoppedBy = signal;
      logger.log('info', `${signal} received: cancelling every prompt and stopping`);
      // Closing the connection closes every session, which cancels its prompt.
      connection.close();
    });
    try {
      await connection.closed;
      if (connection.signal.reason instanceof acp.MessageTooLargeError) {
        logger.log('error', `the client sent a line of more than ${MAX_ACP_MESSAGE_TEXT} (the most crow acp reads in one message), so the connection is closed: the client is broken, or is not an ACP client.`);
        process.stdin.destroy();
        return 1;
      }
      if (!stoppedBy) return 0;
      const { stopAllCommands } = require('../../tools/node-exec') as typeof import('../../tools/node-exec');
      await stopAllCommands(COMMAND_STOP_GRACE_MS);
      // The client did not close our input; stop reading it, so nothing keeps the process.
      process.stdin.destroy();
      return STOP_EXIT_CODES[stoppedBy];
    } finally {
      stopListening();
    }
  } finally {
    stopLoggingRejections();
    restoreConsole();
    await logger.close();
  }
}

/**
 * What crow acp does with a promise that failed with nobody waiting for it
 * (a bug, ours or a dependency's): it logs it, stack and all, and goes on
 * serving. The operation that failed is over and its caller gone; it
 * belongs to one session or one background task, and Node's default (exit
 * 1) would turn it into every session on the connection lost, running
 * commands killed, a prompt's last entries unsaved. An uncaught exception
 * (a synchronous throw that unwound through state no one can vouch for)
 * keeps Node's default: the stack on stderr, then exit.
 */
function logRejections(logger: AcpLogger): () => void {
  const listener = (reason: unknown): void => {
    const error = reason instanceof Error ? (reason.stack ?? reason.message) : String(reason);
    logger.log('error', 'a promise failed with nobody waiting for it (a bug: please report it with this log); every session goes on', { error });
  };
  process.on('unhandledRejection', listener);
  return () => process.off('unhandledRejection', listener);
}

/**
 * The environment sessions read, with the keys crow login stored (read
 * again as they change: key-environment.ts), and a logger that hands every
 * session's redactor the keys stored after it was made.
 */
function keyEnvironment(env: NodeJS.ProcessEnv, logger: AcpLogger): { env: NodeJS.ProcessEnv; refresh(): void; presumed(): NodeJS.ProcessEnv; logger: AcpLogger } {
  const redactors = new Set<Redactor>();
  const { KeyEnvironment } = require('../acp/key-environment') as typeof import('../acp/key-environment');
  const { LoginKeys } = require('../../config/login-keys') as typeof import('../../config/login-keys');
  const keys = new KeyEnvironment(env, new LoginKeys(dataHome(env)), {
    problem: (message) => logger.log('warn', message),
    learned: (values) => {
      for (const redactor of redactors) redactor.learn(values);
    },
  });
  const knowing: AcpLogger = {
    log: (...args) => logger.log(...args),
    knowSecrets: (redactor) => {
      redactors.add(redactor);
      logger.knowSecrets?.(redactor);
    },
    close: () => logger.close(),
  };
  return { env: keys.env, refresh: () => keys.refresh(), presumed: () => keys.presumed(), logger: knowing };
}

/** Each folder's catalog (its trust decided), sessions and undo points in the data folder. */
function sessionSetup(env: NodeJS.ProcessEnv, logger: AcpLogger): SessionSetup {
  // Required here, not imported: providers, tools and storage load on the first session request.
  const { folderCatalog } = require('../acp/default-catalog') as typeof import('../acp/default-catalog');
  const { SessionStore } = require('../../session/session-store') as typeof import('../../session/session-store');
  const { forkSession } = require('../../journal/fork') as typeof import('../../journal/fork');
  const { FileTokenStore } = require('../../mcp/oauth-file-store') as typeof import('../../mcp/oauth-file-store');
  const { terminalSignInHint } = require('./mcp-sign-in-hint') as typeof import('./mcp-sign-in-hint');
  const data = dataHome(env);
  const store = new SessionStore({ dataHome: data, warn: (message) => logger.log('warn', message) });
  return {
    catalogFor: (cwd) => folderCatalog(cwd, env, data),
    store,
    undo: { dataHome: data, env },
    mcpAuth: { store: new FileTokenStore(data), signInHint: terminalSignInHint },
    env,
    fork: (id, at) => forkSession(store, id, at).session.id,
  };
}
