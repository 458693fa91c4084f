/**
 * CRC-32 (the ZIP/zlib polynomial) in plain JavaScript, so a `VirtualFileSystem` file gets
 * the same fingerprint as the same bytes in an archive's central directory: a diff between
 * an archive snapshot and an in-session one then needs no inflation either.
 */

const TABLE = buildTable();

function buildTable(): Uint32Array {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
}

/** CRC-32 of `bytes`, continuing from `previous` (0 to start), as an unsigned 32-bit number. */
export function crc32(bytes: Uint8Array, previous = 0): number {
  let crc = ~previous >>> 0;
  for (let i = 0; i < bytes.length; i++) crc = (TABLE[(crc ^ (bytes[i] ?? 0)) & 0xff] ?? 0) ^ (crc >>> 8);
  return ~crc >>> 0;
}
