/**
 * The images of one Messages request, held to the limits the API refuses
 * past (docs: build-with-claude/vision; the refusals are quoted in public
 * reports): JPEG, PNG, GIF or WebP only; at most 5 MB of base64 each; at
 * most 8000 pixels a side, or 2000 once a request holds more than 20
 * images; at most 100 images a request. An image past a limit is replaced
 * by a note saying so, so the request still goes through and the model
 * knows what it is not seeing.
 */
import type { Base64ImageSource, ContentBlockParam } from '@anthropic-ai/sdk/resources/messages';
import { imageSize } from 'image-size';
import type { ImageBlock, Message } from './types';

const SUPPORTED_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
type SupportedImageType = (typeof SUPPORTED_IMAGE_TYPES)[number];

const MAX_BASE64_BYTES = 5 * 1024 * 1024;
const MAX_SIDE = 8000;
const MAX_SIDE_MANY = 2000;
const MANY_IMAGES = 20;
const MAX_IMAGES = 100;
/** Base64 characters decoded to find an image's size: enough to pass a JPEG's EXIF block to its frame header. */
const HEADER_BASE64_CHARS = 256 * 1024;

export class ImageAdmission {
  private readonly total: number;
  private seen = 0;

  constructor(history: readonly Message[]) {
    this.total = history.reduce((sum, message) => {
      if (message.role === 'user') return sum + message.content.filter((block) => block.type === 'image').length;
      if (message.role === 'tool_results') return sum + message.results.reduce((n, result) => n + (result.images?.length ?? 0), 0);
      return sum;
    }, 0);
  }

  /** The next image of the history (in order) as the API will take it, or the note that stands in for it. */
  admit(block: ImageBlock): ContentBlockParam {
    this.seen += 1;
    const refusal = this.refusal(block);
    if (refusal) return { type: 'text', text: `[An image was left out: ${refusal}.]` };
    const source: Base64ImageSource = { type: 'base64', media_type: block.mimeType as SupportedImageType, data: block.data };
    return { type: 'image', source };
  }

  private refusal(block: ImageBlock): string | undefined {
    if (!(SUPPORTED_IMAGE_TYPES as readonly string[]).includes(block.mimeType)) {
      return `it is ${block.mimeType}, and the model accepts JPEG, PNG, GIF and WebP`;
    }
    if (this.total - this.seen >= MAX_IMAGES) return `a request holds at most ${MAX_IMAGES} images, and ${this.total - this.seen} newer ones follow`;
    if (block.data.length > MAX_BASE64_BYTES) {
      return `it is ${(block.data.length / (1024 * 1024)).toFixed(1)} MB as base64, over the 5 MB the API accepts`;
    }
    const size = sizeOf(block.data);
    const many = Math.min(this.total, MAX_IMAGES) > MANY_IMAGES;
    const limit = many ? MAX_SIDE_MANY : MAX_SIDE;
    if (size && Math.max(size.width, size.height) > limit) {
      const why = many ? ` when a request holds more than ${MANY_IMAGES} images` : '';
      return `it is ${size.width}×${size.height} pixels, over the ${limit} a side the API accepts${why}`;
    }
    return undefined;
  }
}

/** The pixel size from the image's header; undefined when it cannot be read (the API then judges it). */
function sizeOf(base64: string): { width: number; height: number } | undefined {
  try {
    const head = Buffer.from(base64.slice(0, HEADER_BASE64_CHARS - (HEADER_BASE64_CHARS % 4)), 'base64');
    const { width, height } = imageSize(head);
    return width !== undefined && height !== undefined ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}
