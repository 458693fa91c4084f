/**
 * `logs/app.jsonl` as a queryable index: WINK's `/api/logs` (pagination, level/logger/event
 * filters with include and exclude, search) and `/api/logs/facets`, without the SQLite file
 * WINK builds next to the bundle, plus what WINK lacks: a time window and "jump to a time".
 *
 * Work is done when a query needs it. Opening finds the line boundaries (a byte scan); a
 * page decodes and parses only its records. The first filter or facet builds the columns
 * (level, logger, event) from each record's head, read straight from the bytes — WINK
 * writes `{"timestamp": …, "level": …, "logger": …, "event": …, "message": …` in that
 * order — so the 3 MB log of a long run is never decoded as a whole for them. A record
 * written otherwise is parsed to get its columns, and a line that is not a JSON object is
 * kept and shown with its reason (nothing is dropped).
 */
import { InvalidArgumentError } from "../errors.js";
import { ownValue } from "../session/json-value.js";
import type { JsonObject } from "../session/json-value.js";
import { JsonLines, decodeRange, parseRecord } from "./json-lines.js";
import { pageOf, sortFacets } from "./paging.js";
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
  /** Records at or after this ISO-8601 time. */
  readonly since?: string;
  /** Records at or before this ISO-8601 time. */
  readonly until?: string;
  /** Start the page at the first matching record at or after this ISO-8601 time (instead of `offset`). */
  readonly at?: string;
  /** Start the page at the first matching record at or after this 1-based line of the log (instead of `offset`; a deep link to a record). */
  readonly atLine?: number;
}

/** Milliseconds of an ISO-8601 time parameter; EINVAL (400) naming it when it is not one. */
function timeParameter(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new InvalidArgumentError(`${name} must be an ISO-8601 time, got ${JSON.stringify(value.slice(0, 64))}`, { parameter: name });
  return ms;
}

const HEAD_KEYS = ["timestamp", "level", "logger", "event"] as const;

const encoder = new TextEncoder();
/** What precedes each head field's value, and the message: `{"timestamp": "`, `", "level": "`, …, `", "message": `. */
const HEAD_PREFIXES = [`{"timestamp": "`, `", "level": "`, `", "logger": "`, `", "event": "`, `", "message": `].map((text) => encoder.encode(text));

/**
 * Interns the distinct values of a column: records hold small ids. Values read from the
 * log's bytes are looked up by a hash of those bytes, so no string is made per record (a
 * log has thousands of records and a few dozen loggers and events).
 */
class Column {
  readonly names: string[] = [];
  readonly #ids = new Map<string, number>();
  readonly #byHash = new Map<number, { bytes: Uint8Array; id: number }[]>();

  id(name: string): number {
    let id = this.#ids.get(name);
    if (id === undefined) {
      id = this.names.length;
      this.names.push(name);
      this.#ids.set(name, id);
    }
    return id;
  }

  /** The id of the value held by `bytes[start, end)` (made upper-case first for levels). */
  idOfBytes(bytes: Uint8Array, start: number, end: number, upper = false): number {
    let hash = 0x811c9dc5;
    for (let i = start; i < end; i++) hash = Math.imul(hash ^ (bytes[i] as number), 0x01000193);
    const candidates = this.#byHash.get(hash);
    if (candidates !== undefined) {
      for (const candidate of candidates) if (sameBytes(candidate.bytes, bytes, start, end)) return candidate.id;
    }
    const text = decodeRange(bytes, start, end);
    const id = this.id(upper ? text.toUpperCase() : text);
    const entry = { bytes: bytes.slice(start, end), id };
    if (candidates === undefined) this.#byHash.set(hash, [entry]);
    else candidates.push(entry);
    return id;
  }

  find(name: string): number | undefined {
    return this.#ids.get(name);
  }
}

function sameBytes(known: Uint8Array, bytes: Uint8Array, start: number, end: number): boolean {
  if (known.length !== end - start) return false;
  for (let i = 0; i < known.length; i++) if (known[i] !== bytes[start + i]) return false;
  return true;
}

function startsWithBytes(bytes: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (at + prefix.length > bytes.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

/**
 * Where the four leading string fields of the record at `bytes[start, end)` lie (WINK's key
 * order: start and end offsets, in pairs) and where the message's value starts; null when
 * the record is written differently or a field holds an escape (then it is parsed instead).
 */
function scanHead(bytes: Uint8Array, start: number, end: number): { ranges: number[]; bodyStart: number } | null {
  let at = start;
  const ranges: number[] = [];
  for (let k = 0; k < HEAD_KEYS.length; k++) {
    const prefix = HEAD_PREFIXES[k] as Uint8Array;
    if (!startsWithBytes(bytes, at, prefix)) return null;
    const valueStart = at + prefix.length;
    const close = bytes.indexOf(0x22, valueStart);
    if (close === -1 || close >= end) return null;
    for (let i = valueStart; i < close; i++) if (bytes[i] === 0x5c) return null;
    ranges.push(valueStart, close);
    at = close;
  }
  const message = HEAD_PREFIXES[HEAD_KEYS.length] as Uint8Array;
  if (!startsWithBytes(bytes, at, message)) return null;
  return { ranges, bodyStart: at + message.length - start };
}

const stringField = (record: JsonObject, key: string): string => {
  const value = ownValue(record, key);
  return typeof value === "string" ? value : "";
};

/** The columns of every record, built by the first query that filters or counts. */
interface Columns {
  readonly level: Uint32Array;
  readonly logger: Uint32Array;
  readonly event: Uint32Array;
  /** Each record's timestamp: a byte range of the log, or (parsed records) the text itself. */
  readonly timestampStart: Uint32Array;
  readonly timestampEnd: Uint32Array;
  readonly parsedTimestamps: Map<number, string>;
  /** Byte offset in the line where search starts (the message's value), or 0 for the whole line. */
  readonly bodyStart: Uint32Array;
}

/** The records of one `logs/app.jsonl`. */
export class LogIndex {
  readonly #lines: JsonLines;
  readonly levels = new Column();
  readonly loggers = new Column();
  readonly events = new Column();
  /** Why a line is not a JSON object, by record index (complete once the columns exist). */
  readonly #invalid = new Map<number, string>();
  #columns: Columns | null = null;
  #times: Float64Array | null = null;
  #lowercase: string[] | null = null;

  /** Called when the index builds something it then keeps (columns, times, lower-cased text): its weight grew. */
  readonly #onGrow: () => void;

  constructor(bytes: Uint8Array, onGrow: () => void = () => undefined) {
    this.#lines = new JsonLines(bytes);
    this.#onGrow = onGrow;
  }

  /**
   * Bytes this index keeps alive, estimated from what it holds: the log's bytes and line
   * offsets, and once built the columns (six 4-byte columns per record), the times and the
   * lower-cased text (UTF-16, about twice the bytes from the message on).
   */
  get retainedBytes(): number {
    const records = this.count;
    let bytes = this.#lines.bytes.length + records * 12;
    if (this.#columns !== null) bytes += records * 24 + this.#columns.parsedTimestamps.size * 64;
    if (this.#times !== null) bytes += records * 8;
    if (this.#lowercase !== null) bytes += this.#lines.bytes.length * 2;
    return bytes;
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
    this.#built();
    return this.#invalid.size;
  }

  #built(): Columns {
    if (this.#columns !== null) return this.#columns;
    const { bytes, starts, ends } = this.#lines;
    const count = this.count;
    const columns: Columns = {
      level: new Uint32Array(count),
      logger: new Uint32Array(count),
      event: new Uint32Array(count),
      timestampStart: new Uint32Array(count),
      timestampEnd: new Uint32Array(count),
      parsedTimestamps: new Map(),
      bodyStart: new Uint32Array(count),
    };
    for (let i = 0; i < count; i++) {
      const head = scanHead(bytes, starts[i] as number, ends[i] as number);
      if (head !== null) {
        const [timestampStart = 0, timestampEnd = 0, levelStart = 0, levelEnd = 0, loggerStart = 0, loggerEnd = 0, eventStart = 0, eventEnd = 0] = head.ranges;
        columns.timestampStart[i] = timestampStart;
        columns.timestampEnd[i] = timestampEnd;
        columns.level[i] = this.levels.idOfBytes(bytes, levelStart, levelEnd, true);
        columns.logger[i] = this.loggers.idOfBytes(bytes, loggerStart, loggerEnd);
        columns.event[i] = this.events.idOfBytes(bytes, eventStart, eventEnd);
        columns.bodyStart[i] = head.bodyStart;
        continue;
      }
      const parsed = parseRecord(this.#lines.line(i));
      if (!parsed.ok) this.#invalid.set(i, parsed.reason);
      const field = (key: string) => (parsed.ok ? stringField(parsed.value, key) : "");
      columns.parsedTimestamps.set(i, field("timestamp"));
      columns.level[i] = this.levels.id(field("level").toUpperCase());
      columns.logger[i] = this.loggers.id(field("logger"));
      columns.event[i] = this.events.id(field("event"));
    }
    this.#columns = columns;
    this.#onGrow();
    return columns;
  }

  /** Each record's time in ms (NaN when it has none), parsed on the first time query. */
  #timesOf(): Float64Array {
    if (this.#times !== null) return this.#times;
    const columns = this.#built();
    const { bytes } = this.#lines;
    const times = new Float64Array(this.count);
    for (let i = 0; i < this.count; i++) {
      const timestamp = columns.parsedTimestamps.get(i) ?? decodeRange(bytes, columns.timestampStart[i] as number, columns.timestampEnd[i] as number);
      times[i] = timestamp === "" ? Number.NaN : Date.parse(timestamp);
    }
    this.#times = times;
    this.#onGrow();
    return times;
  }

  /** Records per level (upper-cased), e.g. `{DEBUG: 154, INFO: 7}`. */
  levelCounts(): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const { name, count } of countColumn(this.#built().level, this.levels.names, false)) counts[name] = count;
    return counts;
  }

  /** Indexes of the records whose event is `event`, in file order. */
  indexesOfEvent(event: string): number[] {
    const column = this.#built().event;
    const id = this.events.find(event);
    if (id === undefined) return [];
    const found: number[] = [];
    for (let i = 0; i < this.count; i++) if (column[i] === id) found.push(i);
    return found;
  }

  /** The raw text of record `index`. */
  line(index: number): string {
    return this.#lines.line(index);
  }

  lineNumber(index: number): number {
    return this.#lines.lineNumbers[index] as number;
  }

  /** Record `index` as `/api/logs` shows it. */
  entry(index: number): LogEntryView {
    const line = this.#lines.line(index);
    const lineNumber = this.lineNumber(index);
    const known = this.#invalid.get(index);
    const parsed = known === undefined ? parseRecord(line) : null;
    if (parsed === null || !parsed.ok) {
      const reason = parsed === null ? (known as string) : parsed.reason;
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

  /** True when the query keeps every record (then no column is needed). */
  static #unfiltered(query: LogQuery): boolean {
    const none = (values: readonly string[] | undefined) => values === undefined || values.length === 0;
    return (
      none(query.levels) &&
      none(query.excludeLevels) &&
      none(query.loggers) &&
      none(query.excludeLoggers) &&
      none(query.events) &&
      none(query.excludeEvents) &&
      (query.search === undefined || query.search === "") &&
      query.since === undefined &&
      query.until === undefined
    );
  }

  /** The indexes of the records a query matches, in file order. */
  matching(query: LogQuery): number[] {
    if (LogIndex.#unfiltered(query)) return Array.from({ length: this.count }, (_, i) => i);
    const columns = this.#built();
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
    const lower = needle === null ? null : this.#lowercased(columns);
    const sinceMs = timeParameter(query.since, "since");
    const untilMs = timeParameter(query.until, "until");
    const times = sinceMs !== undefined || untilMs !== undefined ? this.#timesOf() : null;
    const since = sinceMs ?? Number.NEGATIVE_INFINITY;
    const until = untilMs ?? Number.POSITIVE_INFINITY;
    const found: number[] = [];
    for (let i = 0; i < this.count; i++) {
      if (levels !== null && !levels.has(columns.level[i] as number)) continue;
      if (excludeLevels !== null && excludeLevels.has(columns.level[i] as number)) continue;
      if (loggers !== null && !loggers.has(columns.logger[i] as number)) continue;
      if (excludeLoggers !== null && excludeLoggers.has(columns.logger[i] as number)) continue;
      if (events !== null && !events.has(columns.event[i] as number)) continue;
      if (excludeEvents !== null && excludeEvents.has(columns.event[i] as number)) continue;
      if (times !== null) {
        const time = times[i] as number;
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
    const at = timeParameter(query.at, "at");
    const found = this.matching(query);
    let offset = query.offset ?? 0;
    if (at !== undefined) {
      const times = this.#timesOf();
      const first = found.findIndex((index) => (times[index] as number) >= at);
      offset = first === -1 ? found.length : first;
    } else if (query.atLine !== undefined) {
      const line = query.atLine;
      const first = found.findIndex((index) => this.lineNumber(index) >= line);
      offset = first === -1 ? found.length : first;
    }
    return pageOf(found, offset, query.limit ?? null, (index) => this.entry(index));
  }

  /** `/api/logs/facets`: every logger, event and level with its count, most frequent first (empty names left out, as WINK does). */
  facets(): LogFacetsView {
    const columns = this.#built();
    return {
      loggers: countColumn(columns.logger, this.loggers.names),
      events: countColumn(columns.event, this.events.names),
      levels: countColumn(columns.level, this.levels.names),
    };
  }

  /** Lower-cased text from the message on, per record (built on the first search). */
  #lowercased(columns: Columns): string[] {
    if (this.#lowercase !== null) return this.#lowercase;
    const { bytes, starts, ends } = this.#lines;
    const lower: string[] = new Array<string>(this.count);
    for (let i = 0; i < this.count; i++) lower[i] = decodeRange(bytes, (starts[i] as number) + (columns.bodyStart[i] as number), ends[i] as number).toLowerCase();
    this.#lowercase = lower;
    this.#onGrow();
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
  return sortFacets(facets);
}
