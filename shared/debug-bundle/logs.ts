/**
 * `logs/app.jsonl` as a queryable index: WINK's `/api/logs` (pagination, level/logger/event
 * filters with include and exclude, search) and `/api/logs/facets`, without the SQLite file
 * WINK builds next to the bundle, plus what WINK lacks: a time window and "jump to a time".
 *
 * Building the index reads each record's head only (`{"timestamp": …, "level": …, "logger":
 * …, "event": …, "message": …` — WINK writes the six keys in that order), so the columns of a
 * 5,000-line log cost a scan, not a parse; a record is parsed in full only when a page shows
 * it. A record that does not start that way is parsed to get its columns, and a line that is
 * not a JSON object is kept and shown with its reason (nothing is dropped).
 */
import { ownValue } from "../session/json-value.js";
import type { JsonObject } from "../session/json-value.js";
import { JsonLinesText, parseRecord } from "./json-lines.js";
import type { FacetCountView, LogEntryView, LogFacetsView, LogPageView } from "./types.js";

/** Filters and paging of `/api/logs` (comma lists already split). */
export interface LogQuery {
  readonly offset?: number;
  /** Page size; undefined or null: every matching record (WINK's default). */
  readonly limit?: number | null;
  readonly levels?: readonly string[];
  readonly excludeLevels?: readonly string[];
  readonly loggers?: readonly string[];
  readonly excludeLoggers?: readonly string[];
  readonly events?: readonly string[];
  readonly excludeEvents?: readonly string[];
  /** Case-insensitive substring of the message or the context. */
  readonly search?: string;
  /** Records at or after this time (ms since the epoch). */
  readonly sinceMs?: number;
  /** Records at or before this time. */
  readonly untilMs?: number;
  /** Start the page at the first matching record at or after this time (overrides `offset`). */
  readonly atMs?: number;
}

const HEAD_KEYS = ["timestamp", "level", "logger", "event"] as const;
const MESSAGE_KEY = ', "message": ';

/** Interns the distinct values of a column: records hold small ids. */
class Column {
  readonly names: string[] = [];
  readonly #ids = new Map<string, number>();

  id(name: string): number {
    let id = this.#ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.names.push(name);
      this.#ids.set(name, id);
    }
    return id;
  }

  find(name: string): number | undefined {
    return this.#ids.get(name);
  }
}

/** Reads a JSON string token at `at` (which must hold `"`); returns its value and the index after it, or null. */
function readString(line: string, at: number): { value: string; end: number } | null {
  if (line.charCodeAt(at) !== 0x22) return null;
  let close = line.indexOf('"', at + 1);
  let escaped = false;
  while (close !== -1) {
    let slashes = 0;
    for (let i = close - 1; i > at && line.charCodeAt(i) === 0x5c; i--) slashes++;
    if (slashes % 2 === 0) break;
    escaped = true;
    close = line.indexOf('"', close + 1);
  }
  if (close === -1) return null;
  const raw = line.slice(at + 1, close);
  if (!escaped && raw.indexOf("\\") === -1) return { value: raw, end: close + 1 };
  try {
    return { value: JSON.parse(line.slice(at, close + 1)) as string, end: close + 1 };
  } catch {
    return null;
  }
}

interface Head {
  readonly fields: readonly [string, string, string, string];
  /** Where the message's value starts (search looks from here: message and context). */
  readonly bodyStart: number;
}

/** The four leading string fields of a record in WINK's key order, or null when the line is written differently. */
function scanHead(line: string): Head | null {
  let at = 0;
  const fields: string[] = [];
  for (const [index, key] of HEAD_KEYS.entries()) {
    const prefix = index === 0 ? `{"${key}": ` : `, "${key}": `;
    if (!line.startsWith(prefix, at)) return null;
    const token = readString(line, at + prefix.length);
    if (token === null) return null;
    fields.push(token.value);
    at = token.end;
  }
  if (!line.startsWith(MESSAGE_KEY, at)) return null;
  return { fields: fields as [string, string, string, string], bodyStart: at + MESSAGE_KEY.length };
}

const stringField = (record: JsonObject, key: string): string => {
  const value = ownValue(record, key);
  return typeof value === "string" ? value : "";
};

/** The records of one `logs/app.jsonl`. */
export class LogIndex {
  readonly #lines: JsonLinesText;
  readonly levels = new Column();
  readonly loggers = new Column();
  readonly events = new Column();
  readonly #level: Uint32Array;
  readonly #logger: Uint32Array;
  readonly #event: Uint32Array;
  readonly #time: Float64Array;
  /** Offset in the line where search starts (the message value), or 0 for the whole line. */
  readonly #bodyStart: Uint32Array;
  /** Why a line is not a JSON object, by record index. */
  readonly #invalid = new Map<number, string>();
  #lowercase: string[] | null = null;

  constructor(bytes: Uint8Array) {
    const lines = new JsonLinesText(bytes);
    this.#lines = lines;
    const count = lines.count;
    this.#level = new Uint32Array(count);
    this.#logger = new Uint32Array(count);
    this.#event = new Uint32Array(count);
    this.#time = new Float64Array(count);
    this.#bodyStart = new Uint32Array(count);
    for (let i = 0; i < count; i++) {
      const line = lines.line(i);
      let fields: readonly string[];
      const head = scanHead(line);
      if (head !== null) {
        fields = head.fields;
        this.#bodyStart[i] = head.bodyStart;
      } else {
        const parsed = parseRecord(line);
        if (parsed.ok) fields = HEAD_KEYS.map((key) => stringField(parsed.value, key));
        else {
          fields = ["", "", "", ""];
          this.#invalid.set(i, parsed.reason);
        }
      }
      const [timestamp = "", level = "", logger = "", event = ""] = fields;
      this.#time[i] = timestamp === "" ? Number.NaN : Date.parse(timestamp);
      this.#level[i] = this.levels.id(level.toUpperCase());
      this.#logger[i] = this.loggers.id(logger);
      this.#event[i] = this.events.id(event);
    }
  }

  /** Records (non-blank lines). */
  get count(): number {
    return this.#lines.count;
  }

  /** Physical lines of the file. */
  get physicalLines(): number {
    return this.#lines.physicalLines;
  }

  /** Lines that are not JSON objects (still listed as entries, with their reason). */
  get invalidCount(): number {
    return this.#invalid.size;
  }

  /** Records per level (upper-cased), e.g. `{DEBUG: 154, INFO: 7}`. */
  levelCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const { name, count } of countColumn(this.#level, this.levels.names, false)) counts[name] = count;
    return counts;
  }

  /** Indexes of the records whose event is `event`, in file order. */
  indexesOfEvent(event: string): number[] {
    const id = this.events.find(event);
    if (id === undefined) return [];
    const found: number[] = [];
    for (let i = 0; i < this.count; i++) if (this.#event[i] === id) found.push(i);
    return found;
  }

  /** The raw text of record `index`. */
  line(index: number): string {
    return this.#lines.line(index);
  }

  lineNumber(index: number): number {
    return this.#lines.lineNumbers[index] as number;
  }

  timeOf(index: number): number {
    return this.#time[index] as number;
  }

  /** Record `index` as `/api/logs` shows it. */
  entry(index: number): LogEntryView {
    const line = this.#lines.line(index);
    const lineNumber = this.lineNumber(index);
    const parsed = this.#invalid.has(index) ? null : parseRecord(line);
    if (parsed === null || !parsed.ok) {
      const reason = parsed === null ? (this.#invalid.get(index) as string) : parsed.reason;
      return { timestamp: "", level: "", logger: "", event: "", message: line.length > 4096 ? `${line.slice(0, 4096)}…` : line, context: {}, line_number: lineNumber, error: `Line ${lineNumber} is not a JSON object: ${reason}` };
    }
    const record = parsed.value;
    const context = ownValue(record, "context");
    return {
      timestamp: stringField(record, "timestamp"),
      level: stringField(record, "level"),
      logger: stringField(record, "logger"),
      event: stringField(record, "event"),
      message: stringField(record, "message"),
      context: context ?? {},
      line_number: lineNumber,
    };
  }

  /** The indexes of the records a query matches, in file order. */
  matching(query: LogQuery): number[] {
    const ids = (column: Column, names: readonly string[] | undefined, upper = false): Set<number> | null => {
      if (names === undefined || names.length === 0) return null;
      const set = new Set<number>();
      for (const name of names) {
        const id = column.find(upper ? name.toUpperCase() : name);
        if (id !== undefined) set.add(id);
      }
      return set;
    };
    const levels = ids(this.levels, query.levels, true);
    const excludeLevels = ids(this.levels, query.excludeLevels, true);
    const loggers = ids(this.loggers, query.loggers);
    const excludeLoggers = ids(this.loggers, query.excludeLoggers);
    const events = ids(this.events, query.events);
    const excludeEvents = ids(this.events, query.excludeEvents);
    const needle = query.search === undefined || query.search === "" ? null : query.search.toLowerCase();
    // Context is searched as written (JSON), so a query with a quote or a newline also
    // matches in its escaped form, as WINK's LIKE on `json.dumps(context)` does.
    const escaped = needle === null ? null : JSON.stringify(needle).slice(1, -1);
    const lower = needle === null ? null : this.#lowercased();
    const since = query.sinceMs ?? Number.NEGATIVE_INFINITY;
    const until = query.untilMs ?? Number.POSITIVE_INFINITY;
    const timed = query.sinceMs !== undefined || query.untilMs !== undefined;
    const found: number[] = [];
    for (let i = 0; i < this.count; i++) {
      if (levels !== null && !levels.has(this.#level[i] as number)) continue;
      if (excludeLevels !== null && excludeLevels.has(this.#level[i] as number)) continue;
      if (loggers !== null && !loggers.has(this.#logger[i] as number)) continue;
      if (excludeLoggers !== null && excludeLoggers.has(this.#logger[i] as number)) continue;
      if (events !== null && !events.has(this.#event[i] as number)) continue;
      if (excludeEvents !== null && excludeEvents.has(this.#event[i] as number)) continue;
      if (timed) {
        const time = this.#time[i] as number;
        if (!(time >= since && time <= until)) continue;
      }
      if (lower !== null && needle !== null && escaped !== null) {
        const text = lower[i] as string;
        if (text.indexOf(needle) === -1 && (escaped === needle || text.indexOf(escaped) === -1)) continue;
      }
      found.push(i);
    }
    return found;
  }

  /** One page of `/api/logs`. */
  page(query: LogQuery): LogPageView {
    const found = this.matching(query);
    let offset = query.offset ?? 0;
    if (query.atMs !== undefined) {
      const at = query.atMs;
      const first = found.findIndex((index) => (this.#time[index] as number) >= at);
      offset = first === -1 ? found.length : first;
    }
    const limit = query.limit ?? null;
    const end = limit === null ? found.length : Math.min(found.length, offset + limit);
    const entries: LogEntryView[] = [];
    for (let k = offset; k < end; k++) entries.push(this.entry(found[k] as number));
    return { entries, total: found.length, offset, limit };
  }

  /** `/api/logs/facets`: every logger, event and level with its count, most frequent first (empty names left out, as WINK does). */
  facets(): LogFacetsView {
    return {
      loggers: countColumn(this.#logger, this.loggers.names),
      events: countColumn(this.#event, this.events.names),
      levels: countColumn(this.#level, this.levels.names),
    };
  }

  /** Lower-cased text from the message on, per record (built on the first search). */
  #lowercased(): string[] {
    if (this.#lowercase !== null) return this.#lowercase;
    const lower: string[] = new Array<string>(this.count);
    for (let i = 0; i < this.count; i++) lower[i] = this.#lines.line(i).slice(this.#bodyStart[i]).toLowerCase();
    this.#lowercase = lower;
    return lower;
  }
}

function countColumn(values: Uint32Array, names: readonly string[], dropEmpty = true): FacetCountView[] {
  const counts = new Uint32Array(names.length);
  for (const id of values) counts[id] = (counts[id] as number) + 1;
  const facets: FacetCountView[] = [];
  names.forEach((name, id) => {
    if ((dropEmpty && name === "") || counts[id] === 0) return;
    facets.push({ name, count: counts[id] as number });
  });
  return facets.sort((a, b) => b.count - a.count || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
