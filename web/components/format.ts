/** Small formatting helpers shared by the views. */

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB", "TB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** `2026-11-22T01:32:19.589822+00:00` → `2026-11-22 01:32:19.589` (as written: no time-zone shift). */
export function formatTimestamp(iso: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})(\.\d{1,3})?/.exec(iso);
  return match === null ? iso : `${match[1]} ${match[2]}${match[3] ?? ""}`;
}

/** `2026-11-22T01:32:19.589822+00:00` → `2026-11-22 02:32:19` in the reader's time zone (here UTC+1); unparseable text as written. */
export function formatLocalTime(iso: string): string {
  const at = new Date(iso);
  if (Number.isNaN(at.getTime())) return iso;
  const two = (value: number) => String(value).padStart(2, "0");
  return `${at.getFullYear()}-${two(at.getMonth() + 1)}-${two(at.getDate())} ${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}`;
}

export function formatDuration(ms: number): string {
  if (!Number.isFinite(ms) || ms < 0) return "";
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 2 : 1)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m ${Math.round(seconds % 60)}s`;
  return `${Math.floor(minutes / 60)}h ${minutes % 60}m`;
}

/** Milliseconds between two ISO timestamps, or null when either does not parse. */
export function elapsedMs(from: string | null, to: string | null): number | null {
  if (from === null || to === null) return null;
  const a = Date.parse(from);
  const b = Date.parse(to);
  return Number.isNaN(a) || Number.isNaN(b) ? null : b - a;
}

/** `+1.234s` offset of `at` from `start`, for timeline rows. */
export function formatOffset(start: string | null, at: string): string {
  const ms = elapsedMs(start, at);
  if (ms === null) return "";
  if (Math.abs(ms) < 1000) return `+${Math.round(ms)}ms`;
  const seconds = ms / 1000;
  if (seconds < 60) return `+${seconds.toFixed(2)}s`;
  return `+${Math.floor(seconds / 60)}:${String(Math.floor(seconds % 60)).padStart(2, "0")}`;
}

let grouping: Intl.NumberFormat | null = null;

/**
 * `12,345`: a count with en-US thousands separators. Integers are grouped here without ICU:
 * `toLocaleString("en-US")` built a formatter per call, and even one `Intl.NumberFormat`
 * costs ~40 ms to create, which was the biggest single cost in the landing page's script.
 */
export function formatCount(count: number): string {
  if (Number.isSafeInteger(count)) return String(count).replace(/\B(?=(\d{3})+$)/g, ",");
  grouping ??= new Intl.NumberFormat("en-US");
  return grouping.format(count);
}

export function plural(count: number, word: string, many = `${word}s`): string {
  return `${formatCount(count)} ${count === 1 ? word : many}`;
}

/** First 8 characters of a UUID-like id, for compact labels (the full id goes in the title). */
export function shortId(id: string): string {
  return id.length > 13 ? `${id.slice(0, 8)}…` : id;
}
