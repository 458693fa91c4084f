/**
 * An `.fs.zip` archive opened in the browser, as a `FileSource`. Archives are untrusted, and
 * the browser applies exactly the server's policy with the server's code: the central
 * directory, names, duplicates, overlaps and layout are checked at open
 * (`shared/archive/catalog.ts`); each read checks the entry's limits (declared size,
 * compression ratio), that its local header and data descriptor agree with the central
 * directory, and then its size and CRC-32 (`shared/archive/entry-checks.ts`). An archive
 * both sides open lists the same files, and each file reads the same bytes or is refused
 * for the same reason.
 *
 * jszip does the inflating, through its public API only: the entry's compressed bytes (as
 * the shared code located them) are wrapped in a one-entry archive that jszip opens, and its
 * documented `internalStream` delivers the output in chunks, so inflation stops as soon as
 * an entry produces more than it declares.
 */
import JSZip from "jszip";
import { FileNotFoundError, IsADirectoryError } from "../../shared/errors.js";
import { checkManifest, readArchiveCatalog, withArchivePath, type ArchiveCatalog, corrupt, memoryRange, type CentralEntry, type ReadRange, checkEntryLimits, checkInflated, inflatedTooMuch, locateEntry, CENTRAL_HEADER_SIZE, EOCD_SIZE, LOCAL_HEADER_SIZE, METHOD_DEFLATE, METHOD_STORED, SIG_CENTRAL_HEADER, SIG_EOCD, SIG_LOCAL_HEADER, U32_MAX } from "../../shared/archive/browser.js";
import { resolveArchiveLimits, type ArchiveLimits, comparePaths } from "../../shared/filesystem/browser.js";
import type { ArchiveManifest } from "../../shared/archive/browser.js";
import type { FileIndexEntry, FileSource } from "../../shared/viewer/index.js";
import { crc32 } from "../../shared/viewer/index.js";

export interface LocalArchive {
  readonly source: FileSource;
  readonly manifest: ArchiveManifest | null;
  readonly warnings: readonly string[];
}

/** jszip's documented `ZipObject.internalStream` (missing from its type declarations). */
interface ChunkStream {
  on(event: "data", listener: (chunk: Uint8Array) => void): ChunkStream;
  on(event: "error", listener: (error: Error) => void): ChunkStream;
  on(event: "end", listener: () => void): ChunkStream;
  resume(): ChunkStream;
  pause(): ChunkStream;
}
interface StreamableObject {
  internalStream(type: "uint8array"): ChunkStream;
}

const WRAPPED_NAME = "e";

/**
 * A canonical one-entry ZIP around deflated bytes: jszip then has nothing to interpret but
 * what the shared code already checked.
 */
function wrapDeflated(entry: CentralEntry, compressed: Uint8Array): Uint8Array {
  if (compressed.length >= U32_MAX) corrupt("Entry is too large to inflate in the browser", { entry: entry.name });
  const total = LOCAL_HEADER_SIZE + 1 + compressed.length + CENTRAL_HEADER_SIZE + 1 + EOCD_SIZE;
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setUint32(0, SIG_LOCAL_HEADER, true);
  view.setUint16(4, 20, true);
  view.setUint16(8, METHOD_DEFLATE, true);
  view.setUint32(14, entry.crc32, true);
  view.setUint32(18, compressed.length, true);
  view.setUint32(22, Math.min(entry.size, U32_MAX - 1), true);
  view.setUint16(26, 1, true);
  out[LOCAL_HEADER_SIZE] = WRAPPED_NAME.charCodeAt(0);
  out.set(compressed, LOCAL_HEADER_SIZE + 1);
  const cd = LOCAL_HEADER_SIZE + 1 + compressed.length;
  view.setUint32(cd, SIG_CENTRAL_HEADER, true);
  view.setUint16(cd + 4, 20, true);
  view.setUint16(cd + 6, 20, true);
  view.setUint16(cd + 10, METHOD_DEFLATE, true);
  view.setUint32(cd + 16, entry.crc32, true);
  view.setUint32(cd + 20, compressed.length, true);
  view.setUint32(cd + 24, Math.min(entry.size, U32_MAX - 1), true);
  view.setUint16(cd + 28, 1, true);
  out[cd + CENTRAL_HEADER_SIZE] = WRAPPED_NAME.charCodeAt(0);
  const eocd = cd + CENTRAL_HEADER_SIZE + 1;
  view.setUint32(eocd, SIG_EOCD, true);
  view.setUint16(eocd + 8, 1, true);
  view.setUint16(eocd + 10, 1, true);
  view.setUint32(eocd + 12, CENTRAL_HEADER_SIZE + 1, true);
  view.setUint32(eocd + 16, cd, true);
  return out;
}

/** Inflate with jszip, stopping past the declared size; size and CRC-32 checked. */
async function inflate(entry: CentralEntry, compressed: Uint8Array): Promise<Uint8Array> {
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(wrapDeflated(entry, compressed), { checkCRC32: false, createFolders: false });
  } catch (error) {
    return corrupt(`Invalid deflate data (${error instanceof Error ? error.message : String(error)})`, { entry: entry.name });
  }
  const object = zip.file(WRAPPED_NAME) as unknown as StreamableObject;
  return new Promise<Uint8Array>((resolve, reject) => {
    const parts: Uint8Array[] = [];
    let produced = 0;
    let crc = 0;
    let settled = false;
    const fail = (error: unknown): void => {
      if (settled) return;
      settled = true;
      stream.pause();
      reject(error);
    };
    const stream = object.internalStream("uint8array");
    stream
      .on("data", (chunk) => {
        if (settled) return;
        produced += chunk.length;
        try {
          if (produced > entry.size) inflatedTooMuch(entry);
        } catch (error) {
          fail(error);
          return;
        }
        crc = crc32(chunk, crc);
        parts.push(chunk);
      })
      .on("error", (error) => {
        try {
          corrupt(`Invalid deflate data (${error.message})`, { entry: entry.name });
        } catch (wrapped) {
          fail(wrapped);
        }
      })
      .on("end", () => {
        if (settled) return;
        try {
          checkInflated(entry, produced, crc);
        } catch (error) {
          fail(error);
          return;
        }
        settled = true;
        const content = new Uint8Array(produced);
        let at = 0;
        for (const part of parts) {
          content.set(part, at);
          at += part.length;
        }
        resolve(content);
      })
      .resume();
  });
}

/** One entry's checked content (limits, local header, data descriptor, size, CRC-32). */
async function readEntry(read: ReadRange, catalog: ArchiveCatalog, entry: CentralEntry, maxBytes: number, limits: ArchiveLimits): Promise<Uint8Array> {
  checkEntryLimits(entry, maxBytes, limits);
  const located = await locateEntry(read, entry, catalog.dataEnd, true);
  const compressed = located.compressed as Uint8Array;
  if (entry.method === METHOD_STORED) {
    const content = compressed.slice();
    checkInflated(entry, content.length, crc32(content));
    return content;
  }
  return inflate(entry, compressed);
}

/** Opens an archive held in memory. Throws `ArchiveError` (naming the archive in `data.archive`) for anything it refuses. */
export async function openLocalArchive(name: string, bytes: Uint8Array, overrides: Partial<ArchiveLimits> = {}): Promise<LocalArchive> {
  const limits = resolveArchiveLimits(overrides);
  const read = memoryRange(bytes);
  const named = <T>(work: Promise<T>): Promise<T> => work.catch((error: unknown) => Promise.reject(withArchivePath(error, name)));
  const catalog = await named(readArchiveCatalog(read, bytes.length, limits));
  const manifestEntry = catalog.manifestEntry;
  const manifestBytes = manifestEntry === null ? null : await named(readEntry(read, catalog, manifestEntry, limits.maxManifestBytes, limits));
  const { manifest, warnings, directories } = checkManifest(catalog, manifestBytes, limits);

  const { index } = catalog;
  const listing: FileIndexEntry[] = Array.from({ length: index.count }, (_, i) => ({ path: index.path(i), size: index.size(i), fingerprint: index.crc32(i) }));
  listing.sort((a, b) => comparePaths(a.path, b.path));
  const source: FileSource = {
    kind: "archive",
    label: name,
    async list() {
      return listing;
    },
    async read(path: string, maxBytes: number) {
      const at = index.indexOf(path);
      if (at === -1) throw directories.includes(path) ? new IsADirectoryError(path) : new FileNotFoundError(path);
      return named(readEntry(read, catalog, index.entry(at), Math.min(maxBytes, limits.maxFileBytes), limits));
    },
  };
  return { source, manifest, warnings };
}
