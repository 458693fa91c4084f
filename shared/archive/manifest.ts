/**
 * `manifest.json` (and the WINK variant's `_wink_metadata.json`): parsing, validation and
 * building. Browser-safe.
 *
 * Parsing is schema validation, not trust: the JSON is parsed with `JSON.parse` and only the
 * known keys are copied (own properties only), so `__proto__`/`constructor` keys can never
 * reach a prototype. Counts and sizes must be finite non-negative safe integers and
 * `version` must be "1"; unknown keys are ignored.
 */
import { ArchiveError, InvalidArgumentError } from "../errors.js";
import { checkRelativePath, type EntryNameLimits } from "./entry-names.js";
import { DEFAULT_ARCHIVE_LIMITS } from "../filesystem/archive-limits.js";

export const MANIFEST_NAME = "manifest.json";
export const WINK_METADATA_NAME = "_wink_metadata.json";
export const MANIFEST_VERSION = "1";

export type ManifestSource = typeof MANIFEST_NAME | typeof WINK_METADATA_NAME;

/** One file listed in a manifest's optional `files` array. */
export interface ManifestFileRecord {
  readonly path: string;
  readonly sizeBytes: number;
  /** Lowercase hex SHA-256, or null when the writer did not record one. */
  readonly sha256: string | null;
}

/** A validated manifest, whichever of the two files it came from. */
export interface ArchiveManifest {
  readonly source: ManifestSource;
  readonly version: typeof MANIFEST_VERSION;
  /** As written (Python isoformat, e.g. `2024-01-15T10:30:00.123456+00:00`). */
  readonly createdAt: string;
  readonly fileCount: number;
  readonly totalBytes: number;
  /** The optional `files` list (our exporter writes it), or null. */
  readonly files: readonly ManifestFileRecord[] | null;
  /** The optional `directories` list (empty directories), or null. */
  readonly directories: readonly string[] | null;
  /** `session_id` when present (always in `_wink_metadata.json`). */
  readonly sessionId: string | null;
  /** `root_path` of `_wink_metadata.json`, when present. */
  readonly rootPath: string | null;
}

type JsonObject = Record<string, unknown>;

const SHA256_HEX = /^[0-9a-fA-F]{64}$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

function invalid(source: ManifestSource, message: string, field?: string): never {
  throw new ArchiveError("E_ARCHIVE_MANIFEST", `Invalid ${source}: ${message}`, field === undefined ? { entry: source } : { entry: source, field });
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function own(object: JsonObject, key: string): unknown {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

function count(source: ManifestSource, object: JsonObject, key: string, field = key): number {
  const value = own(object, key);
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    const shown = value === undefined ? "nothing" : typeof value === "number" ? String(value) : JSON.stringify(value);
    invalid(source, `${field} must be a non-negative integer, got ${shown}`, field);
  }
  return value;
}

function optionalString(source: ManifestSource, object: JsonObject, key: string): string | null {
  const value = own(object, key);
  if (value === undefined || value === null) return null;
  if (typeof value !== "string") invalid(source, `${key} must be a string`, key);
  return value;
}

function checkPath(source: ManifestSource, path: unknown, field: string, limits: EntryNameLimits): string {
  if (typeof path !== "string") invalid(source, `${field} must be a string`, field);
  try {
    checkRelativePath(path, path, limits);
  } catch (error) {
    const reason = error instanceof ArchiveError ? error.message : String(error);
    invalid(source, `${field} is not a valid path (${reason})`, field);
  }
  return path;
}

function parseFiles(source: ManifestSource, value: unknown, limits: EntryNameLimits): ManifestFileRecord[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) invalid(source, "files must be an array", "files");
  const seen = new Set<string>();
  const records: ManifestFileRecord[] = [];
  value.forEach((item: unknown, index) => {
    const field = `files[${index}]`;
    if (!isObject(item)) invalid(source, `${field} must be an object`, field);
    const path = checkPath(source, own(item, "path"), `${field}.path`, limits);
    if (seen.has(path)) invalid(source, `${field}.path lists ${JSON.stringify(path)} twice`, `${field}.path`);
    seen.add(path);
    const sizeBytes = count(source, item, "size_bytes", `${field}.size_bytes`);
    const sha = own(item, "sha256");
    let sha256: string | null = null;
    if (sha !== undefined && sha !== null) {
      if (typeof sha !== "string" || !SHA256_HEX.test(sha)) invalid(source, `${field}.sha256 must be 64 hex digits`, `${field}.sha256`);
      sha256 = sha.toLowerCase();
    }
    records.push({ path, sizeBytes, sha256 });
  });
  return records;
}

function parseDirectories(source: ManifestSource, value: unknown, limits: EntryNameLimits): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value)) invalid(source, "directories must be an array", "directories");
  const directories = new Set<string>();
  value.forEach((item: unknown, index) => directories.add(checkPath(source, item, `directories[${index}]`, limits)));
  return [...directories];
}

/**
 * Parse and validate `manifest.json` or `_wink_metadata.json` (bytes must be UTF-8).
 * Throws `ArchiveError` `E_ARCHIVE_MANIFEST` with `data.entry` = the file name and
 * `data.field` = the offending key.
 */
export function parseManifest(data: Uint8Array | string, source: ManifestSource = MANIFEST_NAME, limits: EntryNameLimits = DEFAULT_ARCHIVE_LIMITS): ArchiveManifest {
  let text: string;
  try {
    text = typeof data === "string" ? data : utf8.decode(data);
  } catch {
    return invalid(source, "not UTF-8");
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return invalid(source, `not valid JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (!isObject(parsed)) return invalid(source, "must be a JSON object");
  const version = own(parsed, "version");
  if (version !== MANIFEST_VERSION) invalid(source, `unsupported version ${JSON.stringify(version) ?? "(missing)"}, expected "1"`, "version");
  const createdAt = own(parsed, "created_at");
  if (typeof createdAt !== "string" || createdAt === "") invalid(source, "created_at must be a non-empty string", "created_at");
  return {
    source,
    version: MANIFEST_VERSION,
    createdAt,
    fileCount: count(source, parsed, "file_count"),
    totalBytes: count(source, parsed, "total_bytes"),
    files: parseFiles(source, own(parsed, "files"), limits),
    directories: parseDirectories(source, own(parsed, "directories"), limits),
    sessionId: optionalString(source, parsed, "session_id"),
    rootPath: optionalString(source, parsed, "root_path"),
  };
}

/**
 * `created_at` in the form Python's `datetime.now(UTC).isoformat()` writes:
 * `2024-01-15T10:30:00.123000+00:00` (the fraction is omitted when it is zero, as Python does).
 */
export function formatCreatedAt(date: Date = new Date()): string {
  const iso = date.toISOString(); // 2024-01-15T10:30:00.123Z
  const seconds = iso.slice(0, 19);
  const millis = date.getUTCMilliseconds();
  return millis === 0 ? `${seconds}+00:00` : `${seconds}.${String(millis * 1000).padStart(6, "0")}+00:00`;
}

/** Input of `buildManifest`: sizes in bytes, paths relative (no `files/` prefix). */
export interface ManifestInput {
  readonly createdAt?: string;
  readonly files: readonly ManifestFileRecord[];
  readonly directories?: readonly string[];
  /** Extra top-level keys (e.g. `session_id`); the keys the format defines cannot be overridden. */
  readonly extra?: Readonly<Record<string, unknown>>;
}

const RESERVED_KEYS = new Set(["version", "created_at", "file_count", "total_bytes", "files", "directories"]);

function defineKey(target: JsonObject, key: string, value: unknown): void {
  // defineProperty, not assignment: a "__proto__" key must become data, not a prototype.
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * The JSON object of `manifest.json` for writing: `version`, `created_at`, `file_count`,
 * `total_bytes`, any `extra` keys, then `files` ([{path, size_bytes, sha256}]) and
 * `directories`.
 */
export function buildManifest(input: ManifestInput): JsonObject {
  const manifest: JsonObject = {};
  let totalBytes = 0;
  for (const file of input.files) totalBytes += file.sizeBytes;
  defineKey(manifest, "version", MANIFEST_VERSION);
  defineKey(manifest, "created_at", input.createdAt ?? formatCreatedAt());
  defineKey(manifest, "file_count", input.files.length);
  defineKey(manifest, "total_bytes", totalBytes);
  for (const [key, value] of Object.entries(input.extra ?? {})) {
    if (RESERVED_KEYS.has(key)) throw new InvalidArgumentError(`manifestExtra cannot set the reserved key "${key}"`, { key });
    try {
      if (JSON.stringify(value) === undefined) throw new TypeError("not representable in JSON");
    } catch (error) {
      throw new InvalidArgumentError(`manifestExtra.${key} is not JSON-serialisable: ${error instanceof Error ? error.message : String(error)}`, { key });
    }
    defineKey(manifest, key, value);
  }
  defineKey(
    manifest,
    "files",
    input.files.map((file) => ({ path: file.path, size_bytes: file.sizeBytes, sha256: file.sha256 })),
  );
  defineKey(manifest, "directories", [...(input.directories ?? [])]);
  return manifest;
}

/** `manifest.json` bytes as we write them (2-space indented JSON, like the reference writer). */
export function serializeManifest(manifest: JsonObject): Uint8Array {
  return new TextEncoder().encode(JSON.stringify(manifest, null, 2));
}
