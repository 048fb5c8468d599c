/**
 * The fake Bedrock's AWS wire against AWS's own implementations (as the
 * Bedrock SDK brings them): its event-stream messages decode with
 * @smithy/eventstream-codec, which checks both CRCs, and its SigV4 check
 * accepts what @smithy/signature-v4 signs and refuses what was altered.
 */
import assert from 'node:assert/strict';
import { Crc32 } from '@aws-crypto/crc32';
import { Sha256 } from '@aws-crypto/sha256-js';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { HttpRequest } from '@smithy/protocol-http';
import { SignatureV4 } from '@smithy/signature-v4';
import { bedrockChunk, bedrockException } from '../../../testkit/aws-event-stream';
import { type AwsCredentials, checkSigV4, type SignedRequest } from '../../../testkit/aws-sigv4';

const utf8 = { toUtf8: (bytes: Uint8Array) => Buffer.from(bytes).toString('utf8'), fromUtf8: (text: string) => new Uint8Array(Buffer.from(text, 'utf8')) };
const codec = new EventStreamCodec(utf8.toUtf8, utf8.fromUtf8);

describe('AWS event-stream framing of the fake Bedrock', () => {
  it('decodes with AWS\'s codec: a chunk event carrying the base64 of the model event', () => {
    const event = JSON.stringify({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'héllo' } });
    const message = codec.decode(bedrockChunk(event));

    assert.equal(message.headers[':event-type']?.value, 'chunk');
    assert.equal(message.headers[':message-type']?.value, 'event');
    const payload = JSON.parse(utf8.toUtf8(message.body)) as { bytes: string };
    assert.equal(Buffer.from(payload.bytes, 'base64').toString('utf8'), event);
  });

  it('frames an in-stream error as an exception message', () => {
    const message = codec.decode(bedrockException('throttlingException', 'Too many tokens'));

    assert.equal(message.headers[':message-type']?.value, 'exception');
    assert.equal(message.headers[':exception-type']?.value, 'throttlingException');
    assert.deepEqual(JSON.parse(utf8.toUtf8(message.body)), { message: 'Too many tokens' });
  });

  it('carries CRCs that AWS\'s codec checks: a changed byte in the prelude or the payload is refused', () => {
    const frame = bedrockChunk('{"type":"ping"}');
    const preludeChanged = Buffer.from(frame);
    preludeChanged[7] = preludeChanged[7]! ^ 1;
    const payloadChanged = Buffer.from(frame);
    payloadChanged[frame.length - 6] = payloadChanged[frame.length - 6]! ^ 1;

    assert.throws(() => codec.decode(preludeChanged), /checksum|length/i);
    assert.throws(() => codec.decode(payloadChanged), /checksum/i);
    const crc = new Crc32().update(frame.subarray(0, 8)).digest();
    assert.equal(frame.readUInt32BE(8), crc, 'the prelude CRC is CRC32 of the two lengths');
  });
});

describe('the SigV4 check of the fake Bedrock', () => {
  const credentials: AwsCredentials = { accessKeyId: 'AKIAFAKECROWTEST0001', secretAccessKey: 'crow-fake-aws-secret-0123456789abcdefghij' };
  const body = JSON.stringify({ anthropic_version: 'bedrock-2023-05-31', max_tokens: 10, messages: [] });
  const path = '/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke-with-response-stream';

  /** A request as the Bedrock SDK signs it, as the server receives it. */
  async function signed(secret = credentials.secretAccessKey, region = 'eu-west-3'): Promise<SignedRequest> {
    const signer = new SignatureV4({ service: 'bedrock', region, credentials: { ...credentials, secretAccessKey: secret }, sha256: Sha256 });
    const request = new HttpRequest({
      method: 'POST',
      protocol: 'http:',
      hostname: '127.0.0.1',
      port: 4100,
      path,
      headers: { host: '127.0.0.1:4100', 'content-type': 'application/json', accept: 'application/json' },
      body,
    });
    const { headers } = await signer.sign(request);
    const lowered = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
    return { method: 'POST', rawUrl: path, headers: lowered, body: Buffer.from(body) };
  }

  it('accepts what AWS\'s signer signed with the key, the path\'s encoded colon included', async () => {
    assert.equal(checkSigV4(await signed(), credentials, 'bedrock', 'eu-west-3'), undefined);
  });

  it('refuses a changed body, another secret, another region, and an unsigned request, as AWS answers', async () => {
    const request = await signed();
    const changed = { ...request, body: Buffer.from(body.replace('10', '11')) };
    assert.equal(checkSigV4(changed, credentials, 'bedrock', 'eu-west-3')?.errorType, 'InvalidSignatureException');
    assert.match(checkSigV4(await signed('another-secret'), credentials, 'bedrock', 'eu-west-3')!.message, /does not match the signature you provided/);
    assert.match(checkSigV4(await signed(undefined, 'us-east-1'), credentials, 'bedrock', 'eu-west-3')!.message, /scoped to a valid region/);
    const { authorization: _, ...unsigned } = request.headers;
    assert.deepEqual(checkSigV4({ ...request, headers: unsigned }, credentials, 'bedrock', 'eu-west-3'), {
      status: 403,
      errorType: 'MissingAuthenticationTokenException',
      message: 'Missing Authentication Token',
    });
  });

  it('refuses another access key and a signature older than five minutes', async () => {
    const request = await signed();
    assert.equal(checkSigV4(request, { ...credentials, accessKeyId: 'AKIAFAKECROWTEST0002' }, 'bedrock', 'eu-west-3')?.errorType, 'UnrecognizedClientException');
    assert.match(checkSigV4(request, credentials, 'bedrock', 'eu-west-3', Date.now() + 6 * 60_000)!.message, /Signature expired/);
  });
});
