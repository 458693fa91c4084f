/**
 * How similar two files are, the way git scores rename and copy candidates
 * (`diffcore-delta.c`, `estimate_similarity` in `diffcore-rename.c`): each file is cut into
 * chunks that end at a newline or after 64 bytes, chunks are hashed, and the score is the
 * number of source bytes whose chunks also occur in the destination, over the larger size.
 * Text files (no NUL in the first 8,000 bytes) read CRLF as LF. Scores run to
 * {@link MAX_SCORE}; git prints `score * 100 / MAX_SCORE`, rounded down, as the percentage.
 */

export const MAX_SCORE = 60_000;
const HASH_BASE = 107_927;
const FIRST_FEW_BYTES = 8000;

/**
 * Bytes per chunk hash of one file (what git calls its spanhash table), as two parallel
 * arrays sorted by hash: scoring a pair is then one merge walk over typed arrays, which
 * matters when every remaining source is scored against every destination.
 */
export interface ChunkCounts {
  readonly size: number;
  /** Distinct chunk hashes, ascending. */
  readonly hashes: Uint32Array;
  /** Bytes of the file in chunks with the hash at the same index. */
  readonly counts: Uint32Array;
}

/** True when git would treat the bytes as binary (a NUL among the first 8,000). */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, FIRST_FEW_BYTES);
  for (let i = 0; i < end; i++) if (bytes[i] === 0) return true;
  return false;
}

/** The chunk counts of a file's bytes. */
export function chunkCounts(bytes: Uint8Array): ChunkCounts {
  const text = !looksBinary(bytes);
  const counts = new Map<number, number>();
  let n = 0;
  let accum1 = 0;
  let accum2 = 0;
  const flush = () => {
    // (accum1 + accum2 * 0x61) in 32-bit unsigned arithmetic, then modulo the hash base.
    const value = ((accum1 + Math.imul(accum2, 0x61)) >>> 0) % HASH_BASE;
    counts.set(value, (counts.get(value) ?? 0) + n);
    n = 0;
    accum1 = 0;
    accum2 = 0;
  };
  for (let i = 0; i < bytes.length; i++) {
    const c = bytes[i] as number;
    if (text && c === 13 && bytes[i + 1] === 10) continue;
    const old1 = accum1;
    accum1 = ((accum1 << 7) ^ (accum2 >>> 25)) >>> 0;
    accum2 = ((accum2 << 7) ^ (old1 >>> 25)) >>> 0;
    accum1 = (accum1 + c) >>> 0;
    n++;
    if (n < 64 && c !== 10) continue;
    flush();
  }
  if (n > 0) flush();
  const hashes = Uint32Array.from(counts.keys()).sort();
  return { size: bytes.length, hashes, counts: Uint32Array.from(hashes, (hash) => counts.get(hash) as number) };
}

/** Source bytes that also occur in the destination (git's `src_copied`). */
export function copiedBytes(source: ChunkCounts, destination: ChunkCounts): number {
  const a = source.hashes;
  const b = destination.hashes;
  let copied = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x < y) i++;
    else if (x > y) j++;
    else copied += Math.min(source.counts[i++] as number, destination.counts[j++] as number);
  }
  return copied;
}

/**
 * True when the sizes alone rule out reaching `minimumScore`: the size difference is more of
 * the larger file than the score allows to differ (git checks this before reading contents).
 */
export function sizesRuleOut(sourceSize: number, destinationSize: number, minimumScore: number): boolean {
  const max = Math.max(sourceSize, destinationSize);
  const min = Math.min(sourceSize, destinationSize);
  return max * (MAX_SCORE - minimumScore) < (max - min) * MAX_SCORE;
}

/** git's similarity score of two files (0 … {@link MAX_SCORE}); 0 when the sizes rule it out. */
export function similarityScore(source: ChunkCounts, destination: ChunkCounts, minimumScore = 0): number {
  const max = Math.max(source.size, destination.size);
  if (max === 0) return MAX_SCORE;
  if (sizesRuleOut(source.size, destination.size, minimumScore)) return 0;
  return Math.floor((copiedBytes(source, destination) * MAX_SCORE) / max);
}

/** A score as the percentage git prints (`R087`): rounded down. */
export function scorePercent(score: number): number {
  return Math.floor((score * 100) / MAX_SCORE);
}

/** A percentage threshold (git's `-M50%`) as a score. */
export function percentScore(percent: number): number {
  return Math.round((percent * MAX_SCORE) / 100);
}
