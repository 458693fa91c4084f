/**
 * Deflate for many small buffers without zlib's per-stream set-up, and a cheap check for
 * data that will not compress.
 */
import { promisify } from "node:util";
import zlib from "node:zlib";

const deflateRaw = promisify(zlib.deflateRaw);

/** An empty final deflate block (BFINAL=1, fixed Huffman, end-of-block): ends a stream after a full flush. */
const FINAL_EMPTY_BLOCK = Uint8Array.of(0x03, 0x00);

/**
 * A long-lived raw deflate stream that compresses one buffer at a time as an independent
 * deflate stream: the data, a full flush (byte-aligned, history reset, so nothing refers to
 * earlier files) and an empty final block. This is how pigz makes independent blocks; it
 * saves zlib's per-stream set-up (~256 KiB of state per file), which dominated the cost of
 * small files. Output is read in paused mode after the flush completes, so the readable
 * buffer must hold one file's output: its high-water mark exceeds the buffered-file limit.
 */
export class DeflateLane {
  readonly #stream: zlib.DeflateRaw;
  readonly #level: number;
  readonly #maxInputBytes: number;
  #queue: Promise<unknown> = Promise.resolve();

  constructor(level: number, maxInputBytes: number) {
    this.#level = level;
    this.#maxInputBytes = maxInputBytes;
    this.#stream = zlib.createDeflateRaw({ level, readableHighWaterMark: 4 * maxInputBytes } as zlib.ZlibOptions);
  }

  /** `data` as a complete raw deflate stream. */
  compress(data: Uint8Array): Promise<Buffer> {
    // Larger inputs could fill the readable buffer before the flush completes: use a one-off stream.
    if (data.length > this.#maxInputBytes) return deflateRaw(data, { level: this.#level });
    const result = this.#queue.then(() => this.#run(data));
    this.#queue = result.catch(() => undefined);
    return result;
  }

  #run(data: Uint8Array): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const stream = this.#stream;
      const fail = (error: Error): void => reject(error);
      stream.once("error", fail);
      stream.write(data);
      stream.flush(zlib.constants.Z_FULL_FLUSH, () => {
        stream.off("error", fail);
        const parts: Buffer[] = [];
        for (let chunk = stream.read() as Buffer | null; chunk !== null; chunk = stream.read() as Buffer | null) parts.push(chunk);
        parts.push(Buffer.from(FINAL_EMPTY_BLOCK));
        resolve(Buffer.concat(parts));
      });
    });
  }

  close(): void {
    this.#stream.destroy();
  }
}

/** Lanes used round-robin (the threadpool has 4 threads; 2 are left for file I/O). */
export class DeflateLanes {
  readonly #lanes: DeflateLane[];
  #next = 0;

  constructor(level: number, count: number, maxInputBytes: number) {
    this.#lanes = Array.from({ length: count }, () => new DeflateLane(level, maxInputBytes));
  }

  compress(data: Uint8Array): Promise<Buffer> {
    const lane = this.#lanes[this.#next] as DeflateLane;
    this.#next = (this.#next + 1) % this.#lanes.length;
    return lane.compress(data);
  }

  close(): void {
    for (const lane of this.#lanes) lane.close();
  }
}

/** Files at least this big are sniffed before being deflated. */
export const SNIFF_MIN_BYTES = 128 * 1024;
/** How much of a file is test-compressed by the sniff. */
export const SNIFF_SAMPLE_BYTES = 16 * 1024;

/**
 * True when a sample of the data does not compress (already-compressed media, archives,
 * random data): deflate runs slowest on such input (~20 MB/s here) for nothing, so the file
 * is stored instead. Level 1 on a 16 KiB sample costs ~0.1 ms on text.
 */
export function looksIncompressible(parts: readonly Uint8Array[]): boolean {
  const sample = Buffer.concat(parts).subarray(0, SNIFF_SAMPLE_BYTES);
  return zlib.deflateRawSync(sample, { level: 1 }).length >= sample.length * 0.97;
}
