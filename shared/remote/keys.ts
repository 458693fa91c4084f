/**
 * Key rules shared by every driver. A key names an object relative to the source's root with
 * "/" between segments. Stores accept almost any key ("../x", "a//b", "/abs" are all valid S3
 * keys), but the viewer maps keys onto paths and URLs, so a key is refused when a segment is
 * empty, "." or "..", or when it holds characters `paths.ts` refuses in workspace paths
 * (NUL, control characters, backslash, bidi overrides, lone surrogates). Listings skip such
 * keys and count them; asking for one by name is `E_SOURCE_INVALID`.
 */
import { SourceError } from "../errors.js";
import { displayPath, findForbiddenCharacter } from "../filesystem/paths.js";

/** S3's limit; no store we read allows longer keys. */
export const MAX_KEY_BYTES = 1024;

const encoder = new TextEncoder();

/** Why `key` is refused, or null when it is a valid object key. */
export function keyProblem(key: string): string | null {
  if (key === "") return "empty key";
  if (encoder.encode(key).length > MAX_KEY_BYTES) return `longer than ${MAX_KEY_BYTES} bytes`;
  const bad = findForbiddenCharacter(key);
  if (bad !== null) return bad;
  for (const segment of key.split("/")) {
    if (segment === "") return "empty segment (leading, trailing or doubled \"/\")";
    if (segment === "." || segment === "..") return `"${segment}" segment`;
  }
  return null;
}

/** Throws `E_SOURCE_INVALID` unless `key` is a valid object key. */
export function checkKey(key: string): string {
  const problem = keyProblem(key);
  if (problem !== null) throw new SourceError("E_SOURCE_INVALID", `Invalid object key ${displayPath(key)}: ${problem}`, { key, reason: "key" });
  return key;
}

/**
 * Throws `E_SOURCE_INVALID` unless `prefix` is "" or a key prefix: complete segments, then
 * optionally a partial last one ("runs/", "runs/2026-").
 */
export function checkPrefix(prefix: string): string {
  if (prefix === "") return prefix;
  const complete = prefix.endsWith("/") ? prefix.slice(0, -1) : prefix;
  const problem = keyProblem(complete);
  if (problem !== null) throw new SourceError("E_SOURCE_INVALID", `Invalid listing prefix ${displayPath(prefix)}: ${problem}`, { prefix, reason: "prefix" });
  return prefix;
}

/** Splits a prefix into its folder ("runs/" or "") and the start of the names in it ("2026-"). */
export function splitPrefix(prefix: string): { folder: string; namePrefix: string } {
  const slash = prefix.lastIndexOf("/");
  return { folder: prefix.slice(0, slash + 1), namePrefix: prefix.slice(slash + 1) };
}

/**
 * Orders keys as S3 does (by their UTF-8 bytes), which is code point order. UTF-16 code-unit
 * order (JavaScript's `<`) agrees except where a surrogate (a character above U+FFFF) meets
 * a unit in U+E000–U+FFFF, so only that case is corrected, at the first differing unit.
 */
export function compareKeys(a: string, b: string): number {
  if (a === b) return 0;
  const length = Math.min(a.length, b.length);
  let i = 0;
  while (i < length && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (i === length) return a.length - b.length;
  const x = a.charCodeAt(i);
  const y = b.charCodeAt(i);
  const xSurrogate = x >= 0xd800 && x <= 0xdfff;
  const ySurrogate = y >= 0xd800 && y <= 0xdfff;
  if (xSurrogate !== ySurrogate && (x >= 0xe000 || y >= 0xe000)) return xSurrogate ? 1 : -1;
  return x - y;
}
