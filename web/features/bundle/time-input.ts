/**
 * What a user types to jump to a time in a log, made an ISO-8601 time the API takes: a full
 * ISO time; a wall-clock time (`05:45:35`, `05:45:35.120`, `5:45`) on the log's own day and
 * offset; or an offset from the log's first record (`+12s`, `+1.5s`, `+2m`, `+250ms`).
 */

const CLOCK = /^(\d{1,2}):(\d{2})(?::(\d{2})(\.\d{1,6})?)?$/;
const OFFSET = /^\+(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/;
const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** The ISO time `text` names, relative to `first` (the log's first timestamp), or null when it names none. */
export function timeFromInput(text: string, first: string | null): string | null {
  const input = text.trim();
  if (input === "") return null;
  const clock = CLOCK.exec(input);
  if (clock !== null) {
    if (first === null) return null;
    const day = /^(\d{4}-\d{2}-\d{2})T[^+Z-]*(Z|[+-]\d{2}:?\d{2})?$/.exec(first);
    if (day === null) return null;
    const [, hours = "0", minutes = "00", seconds = "00", fraction = ""] = clock;
    if (Number(hours) > 23 || Number(minutes) > 59 || Number(seconds) > 59) return null;
    return `${day[1]}T${hours.padStart(2, "0")}:${minutes}:${seconds}${fraction}${day[2] ?? "Z"}`;
  }
  const offset = OFFSET.exec(input);
  if (offset !== null) {
    if (first === null) return null;
    const start = Date.parse(first);
    if (Number.isNaN(start)) return null;
    return new Date(start + Number(offset[1]) * (UNIT_MS[offset[2] ?? "s"] ?? 1000)).toISOString();
  }
  return /^\d{4}-\d{2}-\d{2}/.test(input) && !Number.isNaN(Date.parse(input)) ? input : null;
}

/** `05:45:35.120` of an ISO time as written (no time-zone shift), for row labels. */
export function clockOf(iso: string): string {
  const match = /T(\d{2}:\d{2}:\d{2})(\.\d{1,3})?/.exec(iso);
  return match === null ? iso : `${match[1]}${match[2] ?? ""}`;
}
