/**
 * The listing file for HTTP servers without JSON directory listings (a static host, an S3
 * website, a CDN): `wink-index.json` at the source's root.
 *
 * ```json
 * {"version": 1, "objects": [{"key": "runs/a.jsonl", "size": 1234, "mtime": "2026-11-26T06:36:00.000Z", "etag": "\"5f1…\""}]}
 * ```
 * `key` and `size` are required; `mtime` (ISO-8601) and `etag` are optional. The listing is
 * revalidated with If-None-Match, so publishing a new index is what makes new runs appear.
 * `renderIndexFile` writes one from any listing.
 */
import { SourceError } from "../errors.js";
import type { ObjectInfo } from "./driver.js";
import { compareKeys } from "./keys.js";

export const INDEX_FILE_NAME = "wink-index.json";

interface IndexEntry {
  readonly key: string;
  readonly size: number;
  readonly mtime?: string;
  readonly etag?: string;
}

function isIndexEntry(value: unknown): value is IndexEntry {
  if (typeof value !== "object" || value === null) return false;
  const entry = value as Record<string, unknown>;
  return (
    typeof entry.key === "string" &&
    Number.isSafeInteger(entry.size) &&
    (entry.size as number) >= 0 &&
    (entry.mtime === undefined || typeof entry.mtime === "string") &&
    (entry.etag === undefined || typeof entry.etag === "string")
  );
}

/** The objects of a parsed index file; `E_SOURCE_FAILED` naming `url` when it is not one. */
export function parseIndexFile(value: unknown, url: string): ObjectInfo[] {
  const document = value as { version?: unknown; objects?: unknown } | null;
  if (typeof document !== "object" || document === null || document.version !== 1 || !Array.isArray(document.objects)) {
    throw new SourceError("E_SOURCE_FAILED", `${url} is not a listing index (expected {"version": 1, "objects": [...]})`, { url, reason: "index-file" });
  }
  return document.objects.map((entry: unknown, position: number) => {
    if (!isIndexEntry(entry)) {
      throw new SourceError("E_SOURCE_FAILED", `${url}: object ${position} of the index needs a string "key" and a whole "size"`, { url, reason: "index-file", position });
    }
    const mtimeMs = entry.mtime === undefined ? Number.NaN : Date.parse(entry.mtime);
    return { key: entry.key, size: entry.size, etag: entry.etag ?? null, mtimeMs: Number.isNaN(mtimeMs) ? null : mtimeMs };
  });
}

/** An index file for `objects` (in key order, so the file itself is stable). */
export function renderIndexFile(objects: readonly ObjectInfo[]): string {
  const sorted = [...objects].filter((object) => object.key !== INDEX_FILE_NAME).sort((a, b) => compareKeys(a.key, b.key));
  const entries = sorted.map((object) => ({
    key: object.key,
    size: object.size,
    ...(object.mtimeMs === null ? {} : { mtime: new Date(object.mtimeMs).toISOString() }),
    ...(object.etag === null ? {} : { etag: object.etag }),
  }));
  return `${JSON.stringify({ version: 1, objects: entries })}\n`;
}
