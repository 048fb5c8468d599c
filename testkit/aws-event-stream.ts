/**
 * AWS event-stream framing (`application/vnd.amazon.eventstream`), as Amazon
 * Bedrock's InvokeModelWithResponseStream answers: one binary message per
 * event. Each message is a prelude (total length and headers length, 4-byte
 * big-endian each, then a CRC32 of those 8 bytes), the headers, the payload,
 * and a CRC32 of everything before it; 16 bytes of overhead in all. A header
 * is a 1-byte name length, the name, a 1-byte value type (7: string) and, for
 * a string, a 2-byte big-endian length and the UTF-8 value. CRC32 is GZIP's.
 * Documented at https://docs.aws.amazon.com/lexv2/latest/dg/event-stream-encoding.html
 * and https://docs.aws.amazon.com/transcribe/latest/dg/event-stream.html.
 */
import { crc32 } from 'node:zlib';

const STRING_VALUE = 7;
const PRELUDE_BYTES = 8;
const CRC_BYTES = 4;

/** One message: string headers (e.g. `:event-type`), then the payload bytes. */
export function eventStreamMessage(headers: Record<string, string>, payload: Buffer): Buffer {
  const headerBytes = Buffer.concat(Object.entries(headers).map(([name, value]) => stringHeader(name, value)));
  const total = PRELUDE_BYTES + CRC_BYTES + headerBytes.length + payload.length + CRC_BYTES;
  const prelude = Buffer.alloc(PRELUDE_BYTES + CRC_BYTES);
  prelude.writeUInt32BE(total, 0);
  prelude.writeUInt32BE(headerBytes.length, 4);
  prelude.writeUInt32BE(crc32(prelude.subarray(0, PRELUDE_BYTES)), PRELUDE_BYTES);
  const body = Buffer.concat([prelude, headerBytes, payload]);
  const messageCrc = Buffer.alloc(CRC_BYTES);
  messageCrc.writeUInt32BE(crc32(body), 0);
  return Buffer.concat([body, messageCrc]);
}

function stringHeader(name: string, value: string): Buffer {
  const nameBytes = Buffer.from(name, 'utf8');
  const valueBytes = Buffer.from(value, 'utf8');
  const length = Buffer.alloc(2);
  length.writeUInt16BE(valueBytes.length, 0);
  return Buffer.concat([Buffer.from([nameBytes.length]), nameBytes, Buffer.from([STRING_VALUE]), length, valueBytes]);
}

/**
 * A model event as Bedrock streams it: a `chunk` event whose JSON payload's
 * `bytes` is the base64 of the model's own event (for Claude, one Messages
 * API stream event). The response syntax is in the InvokeModelWithResponseStream
 * reference, https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html
 * (`chunk` → `bytes`, a base64-encoded blob).
 */
export function bedrockChunk(modelEvent: string): Buffer {
  const payload = Buffer.from(JSON.stringify({ bytes: Buffer.from(modelEvent, 'utf8').toString('base64') }), 'utf8');
  return eventStreamMessage({ ':event-type': 'chunk', ':content-type': 'application/json', ':message-type': 'event' }, payload);
}

/**
 * An error after the stream began, as Bedrock sends one: a message of type
 * `exception` naming the exception (internalServerException,
 * modelStreamErrorException, throttlingException, serviceUnavailableException
 * in the same reference), its payload `{ message }`.
 */
export function bedrockException(exceptionType: string, message: string): Buffer {
  const payload = Buffer.from(JSON.stringify({ message }), 'utf8');
  return eventStreamMessage({ ':exception-type': exceptionType, ':content-type': 'application/json', ':message-type': 'exception' }, payload);
}
