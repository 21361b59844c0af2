import type { IncomingMessage } from 'node:http';
import { addAbortSignal, pipeline, Transform, type Readable, type TransformCallback } from 'node:stream';
import { GateError } from '../../shared/errors';
import { countOf } from '../../shared/plural';
import { lazyModule } from './lazyModule';

/** Loaded at the first compressed body, not at every tool process's start. */
const zlib = lazyModule<typeof import('node:zlib')>('node:zlib');

/** Content codings stacked on one body that are undone; more is refused (each layer costs a decoder). */
const MAX_CODINGS = 3;

/** What ends a fetch: its abort signal, whether it expired, and after how long. */
export interface BodyDeadline {
  readonly signal: AbortSignal;
  readonly expired: boolean;
  readonly seconds: number;
}

/** A body read within its caps. */
export interface DecodedBody {
  /** At most maxBytes of the decompressed body. */
  body: Buffer;
  /** Bytes received over the wire, before decompression. */
  rawBytes: number;
  /** Whether the body was cut: more than maxBytes decompressed, or more than maxWireBytes received. */
  truncated: boolean;
}

/** Raised by the wire counter when the received bytes pass the cap; the read ends there, cut. */
class RawCapReached extends Error {}

/** Counts the bytes that come over the wire; past `cap` it passes on what fits, then stops the body. */
class WireCounter extends Transform {
  bytes = 0;

  constructor(private readonly cap: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    const room = this.cap - this.bytes;
    this.bytes += chunk.length;
    if (chunk.length <= room) return callback(null, chunk);
    if (room > 0) this.push(chunk.subarray(0, room));
    callback(new RawCapReached());
  }
}

/**
 * Reads a response body decompressed, cut at maxBytes of decompressed bytes while it streams: zlib
 * honours backpressure, so a bomb is unpacked only as far as it is read, never to the memory bound.
 * The bytes received of a compressed body are capped at maxWireBytes (a compressed body is smaller
 * than its content, so only a hostile one, say of empty compressed members, reaches that cap). Stacked codings
 * (`gzip, br`) are undone last one first.
 */
export async function readDecoded(
  response: IncomingMessage,
  maxBytes: number,
  maxWireBytes: number,
  deadline: BodyDeadline,
): Promise<DecodedBody> {
  const decoders = decodersFor(response.headers['content-encoding']);
  // Unencoded, the decompressed cap is the wire cap; encoded, the wire gets its own.
  const wire = new WireCounter(decoders.length > 0 ? maxWireBytes : Number.POSITIVE_INFINITY);
  // pipeline (not pipe), so a body cut off mid-way fails the decoders too; errors reach the reader through the last stage.
  const stream = pipeline([response, wire, ...decoders], () => {}) as unknown as Readable;
  const chunks: Buffer[] = [];
  let total = 0;
  try {
    // The request's abort destroys the socket, which fails the body with a plain 'aborted' or ECONNRESET;
    // the signal on the stream itself makes sure the read ends even if nothing upstream reports it.
    for await (const chunk of addAbortSignal(deadline.signal, stream)) {
      const buffer = chunk as Buffer;
      if (total + buffer.length > maxBytes) {
        chunks.push(buffer.subarray(0, maxBytes - total));
        return { body: Buffer.concat(chunks), rawBytes: wire.bytes, truncated: true };
      }
      chunks.push(buffer);
      total += buffer.length;
    }
  } catch (error) {
    if (error instanceof RawCapReached || wire.bytes > maxWireBytes) return { body: Buffer.concat(chunks), rawBytes: wire.bytes, truncated: true };
    // Judged by whether our deadline fired, not by the error's name: the same timeout surfaces under several.
    if (deadline.expired) {
      throw new GateError('ETIMEOUT', `the response body did not arrive within ${deadline.seconds} s (${countOf(total, 'byte')} had come)`, {
        bytes: total,
      });
    }
    throw new GateError('ERUNTIME', `the response body could not be read: ${(error as Error).message}`);
  } finally {
    stream.destroy();
    wire.destroy();
  }
  return { body: Buffer.concat(chunks), rawBytes: wire.bytes, truncated: false };
}

/** The decoders a Content-Encoding header asks for, in the order to apply them; an unknown coding is refused. */
function decodersFor(header: string | undefined): Transform[] {
  const codings = (header ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length > MAX_CODINGS) {
    throw new GateError('ERUNTIME', `the response is compressed ${codings.length} times over (${header}); http_fetch undoes at most ${MAX_CODINGS}`);
  }
  return codings.reverse().map((coding) => {
    if (coding === 'gzip' || coding === 'x-gzip') return zlib().createGunzip();
    if (coding === 'deflate') return zlib().createInflate();
    if (coding === 'br') return zlib().createBrotliDecompress();
    throw new GateError('ERUNTIME', `the response uses the content coding ${JSON.stringify(coding)}, which http_fetch cannot decode (it asks for gzip, deflate or br)`);
  });
}
