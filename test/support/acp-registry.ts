/**
 * The ACP registry's checks on an entry (github.com/agentclientprotocol/registry),
 * written again in TypeScript so that a test can run them here, offline, on
 * our registry/crow-agent/ and on the packed npm package. Each check names
 * the function of theirs it mirrors:
 *
 * - REG: .github/workflows/build_registry.py, verify_agents.py and client.py
 *   at commit 3de1678346d1b37b6c3f07de503043ebcbb9cbdb (Feb 2026; line numbers
 *   refer to that commit), and agent.schema.json at 172d5034b0aa (the newest
 *   schema seen; it adds `website`, `license_url` and `sha256` to the older one).
 * - MATRIX: .github/workflows/protocol_matrix.py at 0c2725dc2c57 (the daily
 *   protocol matrix; cited by function name).
 *
 * Their own scripts also run against the package when a checkout of the
 * registry is at hand (ACP_REGISTRY_CHECKOUT, see acp-registry.test.ts).
 */
import * as z from 'zod';

/** REG agent.schema.json: the entry's shape (draft-07 JSON Schema, written as zod). */
const PackageDistribution = z.strictObject({
  package: z.string().min(1),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
});
const BinaryTarget = z.strictObject({
  archive: z.url(),
  sha256: z.string().regex(/^[a-fA-F0-9]{64}$/).optional(),
  cmd: z.string(),
  args: z.array(z.string()).optional(),
  env: z.record(z.string(), z.string()).optional(),
});
const PLATFORMS = ['darwin-aarch64', 'darwin-x86_64', 'linux-aarch64', 'linux-x86_64', 'windows-aarch64', 'windows-x86_64'] as const;
export const RegistryEntry = z.object({
  id: z.string().regex(/^[a-z][a-z0-9-]*$/),
  name: z.string().min(1),
  version: z.string().regex(/^[0-9]+\.[0-9]+\.[0-9]+/),
  description: z.string().min(1),
  repository: z.url().optional(),
  website: z.url().optional(),
  authors: z.array(z.string()).optional(),
  license: z.string().optional(),
  license_url: z.url().optional(),
  icon: z.string().optional(),
  distribution: z
    .strictObject({
      binary: z.partialRecord(z.enum(PLATFORMS), BinaryTarget).refine((targets) => Object.keys(targets).length >= 1, 'needs at least one platform').optional(),
      npx: PackageDistribution.optional(),
      uvx: PackageDistribution.optional(),
    })
    .refine((distribution) => Object.keys(distribution).length >= 1, 'needs at least one distribution'),
});
export type RegistryEntry = z.infer<typeof RegistryEntry>;

/** REG build_registry.py extract_npm_package_name / _version (lines 75-100): `@scope/name@1.0.0` and `name@1.0.0`. */
export function npmSpec(spec: string): { name: string; version: string | undefined } {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  return at < 0 ? { name: spec, version: undefined } : { name: spec.slice(0, at), version: spec.slice(at + 1) };
}

/**
 * Every problem build_registry.py would report for `entry` kept in the folder
 * `folder`: the schema (validate_against_schema, lines 343-358), then
 * validate_agent (lines 361-457: id starts with a letter, lowercase, equals the
 * folder; version x.y.z numeric; binary targets cover darwin, linux and
 * windows), then validate_distribution_versions (lines 124-173: no @latest,
 * the package's version equals the entry's).
 */
export function entryProblems(entry: unknown, folder: string): string[] {
  const parsed = RegistryEntry.safeParse(entry);
  if (!parsed.success) return parsed.error.issues.map((issue) => `schema: ${issue.path.join('.') || 'root'}: ${issue.message}`);
  const { id, version, distribution } = parsed.data;
  const problems: string[] = [];
  if (id !== folder) problems.push(`id (${id}) must match the folder's name (${folder})`);
  const parts = version.split('.');
  if (parts.length < 3 || !parts.slice(0, 3).every((part) => /^\d+$/.test(part))) problems.push(`version ${version} must be x.y.z`);
  if (distribution.binary) {
    const families = new Set(Object.keys(distribution.binary).map((platform) => platform.split('-')[0]));
    const missing = ['darwin', 'linux', 'windows'].filter((family) => !families.has(family));
    if (missing.length > 0) problems.push(`binary builds missing for ${missing.join(', ')}`);
  }
  for (const kind of ['npx', 'uvx'] as const) {
    const spec = distribution[kind]?.package;
    if (spec === undefined) continue;
    if (spec.toLowerCase().includes('@latest')) {
      problems.push(`${kind} package uses @latest: ${spec}`);
      continue;
    }
    const pinned = kind === 'npx' ? npmSpec(spec).version : /[=@]+([\d.]+)/.exec(spec)?.[1];
    if (pinned !== undefined && pinned !== version) problems.push(`${kind} package version (${pinned}) differs from the entry's (${version})`);
  }
  return problems;
}

/** REG build_registry.py ALLOWED_FILL_STROKE_VALUES (line 49). */
const PAINTS = new Set(['currentcolor', 'none', 'inherit']);

/**
 * REG build_registry.py validate_icon (lines 280-322) and
 * validate_icon_monochrome (lines 217-277): 16×16 by the svg's width and
 * height (else its viewBox), square, fill and stroke (attributes and style)
 * only currentColor, none or inherit, and currentColor used somewhere.
 */
export function iconProblems(svg: string): string[] {
  const problems: string[] = [];
  const width = /<svg[^>]*\swidth=["'](\d+)/.exec(svg)?.[1];
  const height = /<svg[^>]*\sheight=["'](\d+)/.exec(svg)?.[1];
  let size: [number, number];
  if (width !== undefined && height !== undefined) size = [Number(width), Number(height)];
  else {
    const box = /viewBox=["'][\d.]+\s+[\d.]+\s+([\d.]+)\s+([\d.]+)/.exec(svg);
    if (!box) return ['no width/height attributes and no viewBox'];
    size = [Number(box[1]), Number(box[2])];
  }
  if (size[0] !== size[1]) problems.push(`not square (${size[0]}x${size[1]})`);
  if (size[0] !== 16 || size[1] !== 16) problems.push(`not 16x16 (${size[0]}x${size[1]})`);
  for (const [, attribute, value] of svg.matchAll(/\b(fill|stroke)\s*=\s*["']([^"']+)["']/gi)) {
    if (!PAINTS.has(value!.trim().toLowerCase())) problems.push(`hardcoded ${attribute}="${value}"`);
  }
  for (const [, style] of svg.matchAll(/\bstyle\s*=\s*["']([^"']+)["']/gi)) {
    for (const property of ['fill', 'stroke']) {
      const value = new RegExp(`\\b${property}\\s*:\\s*([^;]+)`, 'i').exec(style!)?.[1]?.trim();
      if (value !== undefined && !PAINTS.has(value.toLowerCase())) problems.push(`hardcoded style ${property}: ${value}`);
    }
  }
  if (!/currentColor/i.test(svg)) problems.push('currentColor is not used');
  return problems;
}

/** REG client.py run_auth_check (lines 166-180), the same in MATRIX build_initialize_params: what the registry's client sends. */
export function registryInitializeParams(clientName = 'ACP Registry Validator'): Record<string, unknown> {
  return {
    protocolVersion: 1,
    clientInfo: { name: clientName, version: '1.0.0' },
    clientCapabilities: {
      terminal: true,
      fs: { readTextFile: true, writeTextFile: true },
      _meta: { terminal_output: true, 'terminal-auth': true },
    },
  };
}

/**
 * REG client.py parse_auth_methods (lines 36-72): a method's type is its
 * `type`, else `terminal` for `_meta["terminal-auth"]`, `agent` for
 * `_meta["agent-auth"]`, else `agent` (the old default).
 */
export function authMethodType(method: Record<string, unknown>): string {
  if (typeof method.type === 'string' && method.type !== '') return method.type;
  const meta = method._meta;
  if (meta && typeof meta === 'object') {
    if ('terminal-auth' in meta) return 'terminal';
    if ('agent-auth' in meta) return 'agent';
  }
  return 'agent';
}

/** REG client.py validate_auth_methods (lines 75-87): at least one method of type agent or terminal; undefined when that holds. */
export function authProblem(methods: unknown): string | undefined {
  const list = Array.isArray(methods) ? (methods as Record<string, unknown>[]) : [];
  if (list.length === 0) return 'No authMethods in response';
  const types = list.map(authMethodType);
  return types.some((type) => type === 'agent' || type === 'terminal') ? undefined : `No auth method with type 'agent' or 'terminal'. Found types: ${types.join(', ')}`;
}

/** MATRIX METHOD_PROBES, in their order (close last). */
export const METHOD_PROBES = ['session/list', 'session/fork', 'session/resume', 'session/set_model', 'session/close'] as const;
export type ProbedMethod = (typeof METHOD_PROBES)[number];

/** MATRIX probe_params_for_method. */
export function probeParams(method: ProbedMethod, sessionId: string, cwd: string): Record<string, unknown> {
  switch (method) {
    case 'session/list':
      return {};
    case 'session/fork':
    case 'session/resume':
      return { sessionId, cwd, mcpServers: [] };
    case 'session/close':
      return { sessionId };
    case 'session/set_model':
      return { sessionId, modelId: 'matrix-model' };
  }
}

export type ProbeStatus = 'success' | 'method_not_found' | 'auth_required' | 'invalid_params' | 'resource_not_found' | 'cancelled' | 'error' | 'invalid_response' | 'not_applicable';

/** MATRIX classify_rpc_response: a JSON-RPC answer as the matrix files it. */
export function classify(message: { result?: unknown; error?: { code?: unknown; message?: unknown } }): ProbeStatus {
  if ('result' in message) return 'success';
  const error = message.error;
  if (!error || typeof error !== 'object') return 'error';
  const code = Number(error.code);
  const text = String(error.message ?? '').toLowerCase();
  if (code === -32601) return 'method_not_found';
  if (code === -32000 || text.includes('auth_required') || text.includes('authentication')) return 'auth_required';
  if (code === -32602) return 'invalid_params';
  if (code === -32002) return 'resource_not_found';
  if (code === -32800) return 'cancelled';
  return 'error';
}

/** MATRIX close_capability_advertised: `sessionCapabilities.close` is an object (with `_meta` an object or null, if any). */
export function closeAdvertised(sessionCapabilities: Record<string, unknown>): boolean {
  const close = sessionCapabilities.close;
  if (!close || typeof close !== 'object' || Array.isArray(close)) return false;
  const meta = (close as Record<string, unknown>)._meta;
  return !('_meta' in close) || meta === null || (typeof meta === 'object' && !Array.isArray(meta));
}

/** MATRIX normalize_close_outcome: a successful close must answer an object (its `_meta`, if any, an object or null). */
export function closeOutcome(message: { result?: unknown; error?: unknown }): ProbeStatus {
  if ('result' in message && 'error' in message) return 'invalid_response';
  const status = classify(message as Parameters<typeof classify>[0]);
  if (status !== 'success') return status;
  const result = message.result;
  if (!result || typeof result !== 'object' || Array.isArray(result)) return 'invalid_response';
  const meta = (result as Record<string, unknown>)._meta;
  return '_meta' in result && meta !== null && (typeof meta !== 'object' || Array.isArray(meta)) ? 'invalid_response' : 'success';
}

/** MATRIX probe_indicates_support: close counts only when it succeeded; the others also on invalid params or a missing resource. */
export function supported(method: ProbedMethod, status: ProbeStatus): boolean {
  if (method === 'session/close') return status === 'success';
  return status === 'success' || status === 'invalid_params' || status === 'resource_not_found';
}
