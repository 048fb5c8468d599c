import { posix } from 'node:path';
import { imageSize } from 'image-size';
import * as z from 'zod';
import { didYouMean } from '../../vocabulary/did-you-mean';
import { defineTool } from '../define-tool';
import type { ToolOutput } from '../tool';
import type { Workspace } from '../workspace';

const DEFAULT_LIMIT = 2_000;
const MAX_LINE_CHARS = 2_000;
/** Bytes of numbered output one call returns at most. */
const MAX_OUTPUT_BYTES = 100_000;
/** A NUL byte in this many leading bytes marks a file as binary. */
const BINARY_SNIFF_BYTES = 8_192;
/** Text files are read whole before paging, so very large ones are refused. */
const MAX_TEXT_FILE_BYTES = 20 * 1024 * 1024;
/** The largest image the providers accept: Anthropic counts 5 MB of its base64, about 3.75 MB of file. */
const MAX_IMAGE_BASE64_BYTES = 5 * 1024 * 1024;
/** The longest side Anthropic accepts. */
const MAX_IMAGE_SIDE = 8000;

export const readFileTool = defineTool({
  name: 'read_file',
  description:
    'Read a text file from the workspace. Lines come numbered like `cat -n`. ' +
    `At most ${DEFAULT_LIMIT} lines or about ${MAX_OUTPUT_BYTES / 1000} KB come back per call; ` +
    'read further with offset and limit. Images (PNG, JPEG, GIF, WebP) come back as images when the model ' +
    'can see them. Use list_directory for folders. It also reads the whole output a tool result says it saved ' +
    '(the absolute path the result names, outside the workspace).',
  kind: 'read',
  permission: 'read',
  readOnly: true,
  parameters: () => z.object({
    path: z.string().describe('File path, relative to the workspace root (or absolute inside it), or the path of a saved output.'),
    offset: z.number().int().min(1).optional().describe('1-based line number to start reading at.'),
    limit: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(`Maximum number of lines to read (default ${DEFAULT_LIMIT}).`),
  }),
  // Leaves room for the byte cap above plus the notes, so defineTool never cuts the middle.
  maxOutputChars: MAX_OUTPUT_BYTES + 1_000,
  summarize: ({ path, offset, limit }) => {
    if (offset === undefined && limit === undefined) return path;
    const first = offset ?? 1;
    return `${path}:${first}-${first + (limit ?? DEFAULT_LIMIT) - 1}`;
  },
  locations: ({ path, offset }) => [offset === undefined ? { path } : { path, line: offset }],
  async execute({ path, offset = 1, limit = DEFAULT_LIMIT }, { workspace, supportsImages, outputs }) {
    // The session's own saved outputs, exactly as tool results named them: the one way out of the workspace (see SavedOutputs).
    if (outputs?.owns(path)) return textOutput(path, await outputs.read(path), offset, limit);
    const shown = workspace.relative(path);
    const info = await workspace.stat(path);
    if (!info) throw new Error(await notFoundMessage(workspace, shown));
    if (info.type === 'directory') {
      throw new Error(`${shown} is a directory, not a file. Use list_directory to see what it contains.`);
    }
    if (info.size > MAX_TEXT_FILE_BYTES) {
      throw new Error(
        `${shown} is ${megabytes(info.size)}, too large to read whole; search it with grep, or read a slice with bash (e.g. sed -n '100,200p').`,
      );
    }
    const bytes = await workspace.readFile(path);
    const imageType = sniffImageType(bytes);
    if (imageType) return imageOutput(shown, bytes, imageType, supportsImages);
    if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) {
      throw new Error(`${shown} is a binary file (${bytes.length} bytes); read_file only reads text.`);
    }
    return textOutput(shown, bytes, offset, limit);
  },
});

/** Lines `offset` on of a text file, numbered, with a note on where to continue. */
function textOutput(shown: string, bytes: Uint8Array, offset: number, limit: number): ToolOutput {
  const lines = splitLines(new TextDecoder().decode(bytes));
  if (lines.length === 0) return { output: `[${shown} is empty]`, extra: { totalLines: 0 } };
  if (offset > lines.length) {
    throw new Error(`offset ${offset} is past the end of ${shown}, which has ${lines.length} lines.`);
  }
  const { text, lastLine } = numberLines(lines, offset, limit);
  const note =
    lastLine < lines.length
      ? `\n\n[truncated: showing lines ${offset}-${lastLine} of ${lines.length}; continue with offset ${lastLine + 1}]`
      : '';
  return { output: text + note, extra: { totalLines: lines.length, firstLine: offset, lastLine } };
}

/** The image type by its magic bytes, for the formats the providers accept. */
function sniffImageType(bytes: Uint8Array): string | undefined {
  const starts = (...magic: number[]): boolean => magic.every((byte, i) => bytes[i] === byte);
  if (starts(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a)) return 'image/png';
  if (starts(0xff, 0xd8, 0xff)) return 'image/jpeg';
  if (starts(0x47, 0x49, 0x46, 0x38)) return 'image/gif';
  if (starts(0x52, 0x49, 0x46, 0x46) && String.fromCharCode(...bytes.subarray(8, 12)) === 'WEBP') return 'image/webp';
  return undefined;
}

function imageOutput(shown: string, bytes: Uint8Array, mimeType: string, supportsImages: boolean): ToolOutput {
  const what = `${shown} is an image (${mimeType}, ${kilobytes(bytes.length)})`;
  if (!supportsImages) throw new Error(`${what}; this model cannot view images.`);
  if (Math.ceil(bytes.length / 3) * 4 > MAX_IMAGE_BASE64_BYTES) {
    throw new Error(`${what}, larger than the ${megabytes((MAX_IMAGE_BASE64_BYTES / 4) * 3)} a model accepts; view a smaller copy (e.g. convert -resize 50%).`);
  }
  const size = pixelSize(bytes);
  if (size && Math.max(size.width, size.height) > MAX_IMAGE_SIDE) {
    throw new Error(`${what}, ${size.width}×${size.height} pixels: a model accepts at most ${MAX_IMAGE_SIDE} a side; view a smaller copy (e.g. convert -resize 50%).`);
  }
  return {
    output: `${what}, attached.`,
    images: [{ type: 'image', mimeType, data: Buffer.from(bytes).toString('base64') }],
    extra: { mimeType, bytes: bytes.length },
  };
}

function pixelSize(bytes: Uint8Array): { width: number; height: number } | undefined {
  try {
    const { width, height } = imageSize(bytes);
    return width !== undefined && height !== undefined ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}

function kilobytes(bytes: number): string {
  return `${Math.max(1, Math.round(bytes / 1024))} KB`;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function splitLines(text: string): string[] {
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** `cat -n` style rows from line `offset` on, stopping at `limit` lines or the byte cap. */
function numberLines(lines: string[], offset: number, limit: number): { text: string; lastLine: number } {
  const rows: string[] = [];
  let bytes = 0;
  const end = Math.min(lines.length, offset - 1 + limit);
  for (let index = offset - 1; index < end; index++) {
    const row = `${String(index + 1).padStart(6)}\t${cutLongLine(lines[index] ?? '')}`;
    bytes += Buffer.byteLength(row) + 1;
    if (bytes > MAX_OUTPUT_BYTES && rows.length > 0) break;
    rows.push(row);
  }
  return { text: rows.join('\n'), lastLine: offset - 1 + rows.length };
}

function cutLongLine(line: string): string {
  if (line.length <= MAX_LINE_CHARS) return line;
  return `${line.slice(0, MAX_LINE_CHARS)} [… line cut: ${line.length} characters in all]`;
}

async function notFoundMessage(workspace: Workspace, shown: string): Promise<string> {
  const folder = posix.dirname(shown);
  const entries = await workspace.readDirectory(folder).catch(() => []);
  const files = entries.filter((entry) => entry.type !== 'directory').map((entry) => entry.name);
  const guess = didYouMean(posix.basename(shown), files);
  const hint = guess === undefined ? '' : ` Did you mean ${posix.join(folder, guess)}?`;
  return `File not found: ${shown}.${hint}`;
}
