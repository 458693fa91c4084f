/**
 * One workspace file as data for the app: text (line-paginated), an image (base64, from
 * an allow-list of raster types and SVG, which the app shows through `<img>` where it
 * cannot run), or binary (no content). Never HTML for the viewer's origin.
 */
import { InvalidArgumentError } from "../errors.js";
import type { FileContentView } from "./types.js";

const IMAGE_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  bmp: "image/bmp",
  ico: "image/x-icon",
  svg: "image/svg+xml",
};

/** Largest file returned as JSON content (larger ones: use the download route). */
export const MAX_VIEW_BYTES = 16 * 1024 * 1024;

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The MIME type of an image path (by extension, case-insensitive), or null. */
export function imageMimeType(path: string): string | null {
  const dot = path.lastIndexOf(".");
  if (dot === -1 || dot < path.lastIndexOf("/")) return null;
  return IMAGE_TYPES[path.slice(dot + 1).toLowerCase()] ?? null;
}

/** Text when the bytes are valid UTF-8 without NUL bytes; null otherwise. */
export function decodeText(bytes: Uint8Array): string | null {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    return null;
  }
  // A NUL byte decodes to U+0000 and nothing else does; a string search is much faster than
  // scanning the bytes with Uint8Array#includes.
  return text.includes("\u0000") ? null : text;
}

export interface FileContentOptions {
  /** First line to return (0-based, default 0). */
  offset?: number;
  /** Lines to return (default all). */
  limit?: number | null;
}

/** Classifies and (for text) paginates a file's bytes. */
export function fileContent(path: string, bytes: Uint8Array, options: FileContentOptions = {}): FileContentView {
  const offset = options.offset ?? 0;
  const limit = options.limit ?? null;
  if (!Number.isInteger(offset) || offset < 0) throw new InvalidArgumentError(`offset must be a non-negative integer, got ${offset}`);
  if (limit !== null && (!Number.isInteger(limit) || limit < 0)) throw new InvalidArgumentError(`limit must be a non-negative integer, got ${limit}`);
  const base = { path, size_bytes: bytes.length, offset: 0, limit: null, total_lines: null, truncated: false };
  const mime = imageMimeType(path);
  if (mime !== null) return { ...base, type: "image", mime_type: mime, content: toBase64(bytes), encoding: "base64" };
  const text = decodeText(bytes);
  if (text === null) return { ...base, type: "binary", mime_type: null, content: null, encoding: null };
  if (offset === 0 && limit === null) {
    // The common case (a whole file, on every file view) as one literal: the spreads below
    // cost more than the rest of this function on a 10 kB file. Same keys, same order.
    return { path, size_bytes: bytes.length, offset: 0, limit: null, total_lines: countLines(text), truncated: false, type: "text", mime_type: "text/plain", encoding: "utf-8", content: text };
  }
  const view = { ...base, type: "text" as const, mime_type: "text/plain", encoding: "utf-8" as const, offset, limit };
  const lines = splitLinesKeepEnds(text);
  const end = limit === null ? lines.length : Math.min(lines.length, offset + limit);
  return { ...view, content: lines.slice(offset, Math.max(offset, end)).join(""), total_lines: lines.length, truncated: end < lines.length };
}

/** Number of lines as {@link splitLinesKeepEnds} counts them, without building them. */
export function countLines(text: string): number {
  if (text === "") return 0;
  let count = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) count++;
  return text.endsWith("\n") ? count : count + 1;
}

/** Lines with their `\n` kept (the last one may lack it); "" has no lines. */
export function splitLinesKeepEnds(text: string): string[] {
  const lines: string[] = [];
  let start = 0;
  while (start < text.length) {
    const newline = text.indexOf("\n", start);
    const end = newline === -1 ? text.length : newline + 1;
    lines.push(text.slice(start, end));
    start = end;
  }
  return lines;
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/** Standard base64 without a Node or DOM dependency. */
export function toBase64(bytes: Uint8Array): string {
  const parts: string[] = [];
  let chunk = "";
  for (let i = 0; i < bytes.length; i += 3) {
    const a = bytes[i] ?? 0;
    const b = bytes[i + 1];
    const c = bytes[i + 2];
    chunk += BASE64[a >> 2];
    chunk += BASE64[((a & 3) << 4) | ((b ?? 0) >> 4)];
    chunk += b === undefined ? "=" : BASE64[((b & 15) << 2) | ((c ?? 0) >> 6)];
    chunk += c === undefined ? "=" : BASE64[c & 63];
    if (chunk.length >= 8192) {
      parts.push(chunk);
      chunk = "";
    }
  }
  parts.push(chunk);
  return parts.join("");
}
