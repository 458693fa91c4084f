/**
 * The one walk over a value that our two JSON writers share (Python's `json.dumps` for the
 * files we write, strict JSON for HTTP answers): `toJSON()`, members without a JSON form
 * dropped from objects and `null` in arrays, the depth cap and cycles. A dialect says how
 * the leaves, the separators and the cut-off containers are written.
 */

export interface JsonDialect {
  /** Between array items and between object members (`", "` for Python, `","` strict). */
  readonly itemSeparator: string;
  /** Between a key and its value (`": "` for Python, `":"` strict). */
  readonly keySeparator: string;
  /** Orders an object's keys; undefined keeps insertion order. */
  readonly compareKeys?: ((a: string, b: string) => number) | undefined;
  string(value: string): string;
  number(value: number): string;
  /** The text for a container past the depth cap or inside itself, or throws. */
  cutOff(reason: "max-depth" | "cycle"): string;
  /** What a `toJSON()` that threw stands for, or rethrows. */
  toJsonThrew(error: unknown): unknown;
}

/**
 * Appends `value`'s text to `parts`; false when it has no JSON form (undefined, a
 * function, a symbol), which the caller writes as `null` or leaves out.
 */
export function writeJson(parts: string[], value: unknown, dialect: JsonDialect, maxDepth: number): boolean {
  return new JsonWriter(parts, dialect, maxDepth).write(value, 0);
}

class JsonWriter {
  private readonly ancestors = new Set<object>();

  constructor(
    private readonly parts: string[],
    private readonly dialect: JsonDialect,
    private readonly maxDepth: number,
  ) {}

  write(value: unknown, depth: number): boolean {
    switch (typeof value) {
      case "string":
        this.parts.push(this.dialect.string(value));
        return true;
      case "number":
        this.parts.push(this.dialect.number(value));
        return true;
      case "bigint":
        this.parts.push(value.toString());
        return true;
      case "boolean":
        this.parts.push(value ? "true" : "false");
        return true;
      case "object":
        if (value === null) {
          this.parts.push("null");
          return true;
        }
        return this.writeContainer(value, depth);
      default:
        return false;
    }
  }

  private writeContainer(value: object, depth: number): boolean {
    const withToJson = value as { toJSON?: unknown };
    if (typeof withToJson.toJSON === "function") {
      let replacement: unknown;
      try {
        replacement = (withToJson.toJSON as () => unknown).call(value);
      } catch (error) {
        replacement = this.dialect.toJsonThrew(error);
      }
      if (replacement !== value) return this.write(replacement, depth);
    }
    if (depth >= this.maxDepth) {
      this.parts.push(this.dialect.cutOff("max-depth"));
      return true;
    }
    if (this.ancestors.has(value)) {
      this.parts.push(this.dialect.cutOff("cycle"));
      return true;
    }
    this.ancestors.add(value);
    const { itemSeparator, keySeparator, compareKeys } = this.dialect;
    if (Array.isArray(value)) {
      this.parts.push("[");
      value.forEach((element: unknown, index) => {
        if (index > 0) this.parts.push(itemSeparator);
        if (!this.write(element, depth + 1)) this.parts.push("null");
      });
      this.parts.push("]");
    } else {
      const record = value as Record<string, unknown>;
      const keys = Object.keys(record);
      if (compareKeys !== undefined) keys.sort(compareKeys);
      this.parts.push("{");
      let first = true;
      for (const key of keys) {
        const mark = this.parts.length;
        this.parts.push(first ? "" : itemSeparator, this.dialect.string(key), keySeparator);
        if (this.write(record[key], depth + 1)) first = false;
        else this.parts.length = mark; // JSON.stringify drops members without a JSON form
      }
      this.parts.push("}");
    }
    this.ancestors.delete(value);
    return true;
  }
}
