/**
 * An `.fs.zip` archive opened in the browser with jszip, as a `FileSource`. Archives are
 * untrusted: before jszip parses anything the end-of-central-directory record is read to
 * guard the entry count; then every name is validated with the server's rules
 * (`shared/archive/entry-names.ts`), symlinks and special files are refused, declared sizes
 * and ratios are bounded, a lying entry count (or a duplicate name, which jszip would
 * silently merge) is refused, and each read checks the size and CRC-32.
 */
import JSZip from "jszip";
import { ArchiveError, FileNotFoundError } from "../../shared/errors.js";
import { FILES_PREFIX, decodeEntryName, validateEntryName } from "../../shared/archive/entry-names.js";
import { DEFAULT_ARCHIVE_LIMITS, type ArchiveLimits } from "../../shared/archive/limits.js";
import { MANIFEST_NAME, WINK_METADATA_NAME, parseManifest, type ArchiveManifest } from "../../shared/archive/manifest.js";
import { comparePaths } from "../../shared/filesystem/paths.js";
import type { FileIndexEntry, FileSource } from "../../shared/viewer/file-source.js";
import { crc32 } from "../../shared/viewer/crc32.js";

/** What jszip keeps about an entry (internal, but stable across jszip 3). */
interface CompressedData {
  readonly crc32: number;
  readonly compressedSize: number;
  readonly uncompressedSize: number;
  /** jszip's method marker: "\x00\x00" for stored entries. */
  readonly compression?: { readonly magic?: string };
}

interface Entry {
  readonly object: JSZip.JSZipObject;
  readonly size: number;
  readonly crc: number;
}

export interface LocalArchive {
  readonly source: FileSource;
  readonly manifest: ArchiveManifest | null;
  readonly warnings: readonly string[];
}

const EOCD_SIGNATURE = 0x06054b50;
const ZIP64_LOCATOR_SIGNATURE = 0x07064b50;
const ZIP64_EOCD_SIGNATURE = 0x06064b50;

/**
 * The entry count the end-of-central-directory record declares (ZIP64 aware), after
 * checking that the records sit where they say: nothing after the end record and its
 * comment, nothing between the central directory and the end record. Archives with bytes
 * prepended or appended are refused, as the server's reader refuses them.
 */
export function declaredEntryCount(bytes: Uint8Array, name: string): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const corrupt = (why: string): never => {
    throw new ArchiveError("E_ARCHIVE_CORRUPT", `${name} is not a valid ZIP archive: ${why}`, { archive: name });
  };
  const lowest = Math.max(0, bytes.length - 22 - 0xffff);
  for (let at = bytes.length - 22; at >= lowest; at--) {
    if (view.getUint32(at, true) !== EOCD_SIGNATURE) continue;
    if (at + 22 + view.getUint16(at + 20, true) !== bytes.length) corrupt("bytes after the end-of-central-directory record");
    const count = view.getUint16(at + 10, true);
    const size = view.getUint32(at + 12, true);
    const offset = view.getUint32(at + 16, true);
    if (count !== 0xffff && size !== 0xffffffff && offset !== 0xffffffff) {
      if (offset + size !== at) corrupt("the central directory is not where the end record says (bytes prepended?)");
      return count;
    }
    const locator = at - 20;
    if (locator < 0 || view.getUint32(locator, true) !== ZIP64_LOCATOR_SIGNATURE) corrupt("ZIP64 fields without a ZIP64 locator");
    const zip64At = Number(view.getBigUint64(locator + 8, true));
    if (zip64At + 56 > locator || view.getUint32(zip64At, true) !== ZIP64_EOCD_SIGNATURE) corrupt("the ZIP64 end record is out of range");
    const big = view.getBigUint64(zip64At + 32, true);
    const cdSize = view.getBigUint64(zip64At + 40, true);
    const cdOffset = view.getBigUint64(zip64At + 48, true);
    if (cdOffset + cdSize !== BigInt(zip64At)) corrupt("the central directory is not where the ZIP64 end record says");
    return big > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(big);
  }
  return corrupt("no end-of-central-directory record");
}

function compressedData(object: JSZip.JSZipObject): CompressedData | null {
  const data = (object as unknown as { _data?: Partial<CompressedData> })._data;
  if (data === undefined || typeof data.crc32 !== "number" || typeof data.uncompressedSize !== "number" || typeof data.compressedSize !== "number") return null;
  return { crc32: data.crc32 >>> 0, compressedSize: data.compressedSize, uncompressedSize: data.uncompressedSize, ...(data.compression === undefined ? {} : { compression: data.compression }) };
}

function fileType(object: JSZip.JSZipObject): "file" | "directory" | "other" {
  const mode = typeof object.unixPermissions === "number" ? object.unixPermissions : null;
  const type = mode === null ? 0 : mode & 0o170000;
  if (type === 0) return object.dir ? "directory" : "file";
  if (type === 0o040000) return "directory";
  if (type === 0o100000) return "file";
  return "other";
}

/** Opens an archive held in memory. Throws `ArchiveError` for anything it refuses. */
export async function openLocalArchive(name: string, bytes: Uint8Array, overrides: Partial<ArchiveLimits> = {}): Promise<LocalArchive> {
  const limits: ArchiveLimits = { ...DEFAULT_ARCHIVE_LIMITS, ...overrides };
  const declared = declaredEntryCount(bytes, name);
  if (declared > limits.maxEntries) {
    throw new ArchiveError("E_ARCHIVE_LIMIT", `${name} declares ${declared} entries, more than the ${limits.maxEntries} allowed`, { archive: name, limit: limits.maxEntries });
  }
  let zip: JSZip;
  try {
    zip = await JSZip.loadAsync(bytes, { createFolders: false, checkCRC32: false, decodeFileName: (raw) => decodeEntryName(raw instanceof Uint8Array ? raw : new Uint8Array(raw as unknown as ArrayLike<number>)) });
  } catch (error) {
    if (error instanceof ArchiveError) throw error;
    throw new ArchiveError("E_ARCHIVE_CORRUPT", `${name} cannot be read: ${error instanceof Error ? error.message : String(error)}`, { archive: name }, { cause: error });
  }
  const objects = Object.values(zip.files);
  if (objects.length !== declared) {
    throw new ArchiveError("E_ARCHIVE_CORRUPT", `${name} declares ${declared} entries but its central directory holds ${objects.length} distinct names (duplicate or hidden entries)`, { archive: name });
  }

  const byName = new Map<string, { object: JSZip.JSZipObject; data: CompressedData; isDirectory: boolean; path: string }>();
  const add = (entry: { object: JSZip.JSZipObject; data: CompressedData; isDirectory: boolean; path: string }) => {
    const previous = byName.get(entry.path);
    if (previous !== undefined) {
      const what = previous.isDirectory === entry.isDirectory ? "is in the archive twice" : "is both a file and a directory";
      throw new ArchiveError("E_ARCHIVE_ENTRY", `${name}: ${entry.path} ${what}`, { archive: name, entry: entry.path });
    }
    byName.set(entry.path, entry);
  };
  let total = 0;
  for (const object of objects) {
    const rawName = object.unsafeOriginalName ?? object.name;
    const type = fileType(object);
    if (type === "other") throw new ArchiveError("E_ARCHIVE_UNSUPPORTED", `${name}: ${rawName} is a symlink or special file`, { archive: name, entry: rawName });
    const validated = validateEntryName(rawName, limits);
    if (validated.isDirectory || type === "directory") {
      add({ object, data: { crc32: 0, compressedSize: 0, uncompressedSize: 0 }, isDirectory: true, path: validated.path });
      continue;
    }
    // jszip keeps no compressed data for empty entries: read them (nothing to inflate) to be sure.
    const data = compressedData(object) ?? ((await object.async("uint8array")).length === 0 ? { crc32: 0, compressedSize: 0, uncompressedSize: 0 } : null);
    if (data === null) throw new ArchiveError("E_ARCHIVE_CORRUPT", `${name}: no size information for ${rawName}`, { archive: name, entry: rawName });
    if (data.compression?.magic === "\x00\x00" && data.compressedSize !== data.uncompressedSize) {
      throw new ArchiveError("E_ARCHIVE_CORRUPT", `${name}: stored entry ${rawName} has different compressed and uncompressed sizes`, { archive: name, entry: rawName });
    }
    if (data.uncompressedSize > limits.maxFileBytes) {
      throw new ArchiveError("E_ARCHIVE_LIMIT", `${name}: ${rawName} declares ${data.uncompressedSize} bytes, more than ${limits.maxFileBytes}`, { archive: name, entry: rawName });
    }
    if (data.uncompressedSize > 1024 * 1024 && data.uncompressedSize > limits.maxCompressionRatio * Math.max(1, data.compressedSize)) {
      throw new ArchiveError("E_ARCHIVE_LIMIT", `${name}: ${rawName} has a compression ratio above ${limits.maxCompressionRatio}`, { archive: name, entry: rawName });
    }
    total += data.uncompressedSize;
    if (total > limits.maxTotalBytes) throw new ArchiveError("E_ARCHIVE_LIMIT", `${name} holds more than ${limits.maxTotalBytes} bytes`, { archive: name });
    add({ object, data, isDirectory: false, path: validated.path });
  }

  // A path cannot be both a file and a directory (`a` and `a/b`, or `x/` and `x`).
  const filePaths = new Set<string>();
  for (const entry of byName.values()) if (!entry.isDirectory) filePaths.add(entry.path);
  for (const entry of byName.values()) {
    const segments = entry.path.split("/");
    for (let depth = 1; depth <= segments.length; depth++) {
      const prefix = segments.slice(0, depth).join("/");
      // Same-path clashes were refused by add(); here, a file standing where a directory must be.
      const clash = depth < segments.length && filePaths.has(prefix);
      if (clash) throw new ArchiveError("E_ARCHIVE_ENTRY", `${name}: ${prefix} is both a file and a directory`, { archive: name, entry: prefix });
    }
  }

  // The two layouts the server reads (shared/archive/reader.node.ts): manifest.json +
  // files/…, or root entries + _wink_metadata.json.
  const asFile = (entryName: string) => {
    const found = byName.get(entryName);
    return found !== undefined && !found.isDirectory ? found : null;
  };
  const manifestEntry = asFile(MANIFEST_NAME);
  const metadataEntry = asFile(WINK_METADATA_NAME);
  const all = [...byName.values()];
  const filesPrefixed = all.length > 0 && all.every((entry) => (entry.object.unsafeOriginalName ?? entry.object.name).startsWith(FILES_PREFIX));
  const rootVariant = manifestEntry === null && (metadataEntry !== null || (!filesPrefixed && all.length > 0));
  const metaEntry = rootVariant ? metadataEntry : manifestEntry;

  const entries = new Map<string, Entry>();
  const warnings: string[] = [];
  for (const entry of all) {
    if (entry === metaEntry || entry.isDirectory) continue;
    let path = entry.path;
    if (!rootVariant) {
      if (!path.startsWith(FILES_PREFIX)) {
        warnings.push(`Entry outside files/ ignored: ${path}`);
        continue;
      }
      path = path.slice(FILES_PREFIX.length);
    }
    entries.set(path, { object: entry.object, size: entry.data.uncompressedSize, crc: entry.data.crc32 });
  }

  let manifest: ArchiveManifest | null = null;
  if (metaEntry !== null) {
    if (metaEntry.data.uncompressedSize > limits.maxManifestBytes) throw new ArchiveError("E_ARCHIVE_LIMIT", `${name}: manifest larger than ${limits.maxManifestBytes} bytes`, { archive: name });
    manifest = parseManifest(await readChecked(name, metaEntry.path, { object: metaEntry.object, size: metaEntry.data.uncompressedSize, crc: metaEntry.data.crc32 }), rootVariant ? WINK_METADATA_NAME : MANIFEST_NAME, limits);
    if (manifest.fileCount !== entries.size) warnings.push(`${manifest.source} says ${manifest.fileCount} files, the archive holds ${entries.size}`);
  } else {
    warnings.push("The archive has no manifest");
  }

  const listing: FileIndexEntry[] = [...entries].map(([path, entry]) => ({ path, size: entry.size, fingerprint: entry.crc })).sort((a, b) => comparePaths(a.path, b.path));
  const source: FileSource = {
    kind: "archive",
    label: name,
    async list() {
      return listing;
    },
    async read(path: string, maxBytes: number) {
      const entry = entries.get(path);
      if (entry === undefined) throw new FileNotFoundError(path);
      if (entry.size > maxBytes) throw new ArchiveError("E_ARCHIVE_LIMIT", `${path} is larger than ${maxBytes} bytes`, { archive: name, entry: path, limit: maxBytes });
      return readChecked(name, path, entry);
    },
  };
  return { source, manifest, warnings };
}

async function readChecked(archive: string, path: string, entry: Entry): Promise<Uint8Array> {
  const bytes = await entry.object.async("uint8array");
  if (bytes.length !== entry.size) {
    throw new ArchiveError("E_ARCHIVE_CORRUPT", `${archive}: ${path} inflated to ${bytes.length} bytes, ${entry.size} declared`, { archive, entry: path });
  }
  if (crc32(bytes) !== entry.crc) throw new ArchiveError("E_ARCHIVE_CHECKSUM", `${archive}: CRC-32 mismatch in ${path}`, { archive, entry: path });
  return bytes;
}
