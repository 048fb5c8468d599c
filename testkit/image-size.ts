import { imageSize as measure } from 'image-size';

/** An image's pixel size from its base64 data; undefined when it cannot be read. */
export function imageSize(base64: string): { width: number; height: number } | undefined {
  try {
    const { width, height } = measure(Buffer.from(base64, 'base64'));
    return width !== undefined && height !== undefined ? { width, height } : undefined;
  } catch {
    return undefined;
  }
}
