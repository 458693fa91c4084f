/**
 * The value type of everything read from (and written to) WINK session files.
 *
 * Python's `json` module round-trips values that JavaScript's JSON does not: integers of
 * any size and the non-finite floats. `bigint` holds an integer that lies outside the
 * safe-integer range (so it is never rounded); `number` holds everything else, including
 * `NaN` and `±Infinity`.
 */
export type JsonValue = null | boolean | number | bigint | string | JsonArray | JsonObject;

export type JsonArray = JsonValue[];

export interface JsonObject {
  [key: string]: JsonValue;
}

/** True for a JSON object (not an array, not null). */
export function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Own-property read: never reaches `Object.prototype` (a key named `toString` or
 * `__proto__` that the data lacks reads as undefined, not as an inherited function).
 */
export function ownValue(object: JsonObject, key: string): JsonValue | undefined {
  return Object.prototype.hasOwnProperty.call(object, key) ? object[key] : undefined;
}

/**
 * Own-property write with JSON.parse semantics: `__proto__` becomes an ordinary data
 * property instead of replacing the prototype, so attacker-chosen keys never pollute.
 */
export function setOwnValue(object: JsonObject, key: string, value: JsonValue): void {
  if (key === "__proto__") {
    Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  } else {
    object[key] = value;
  }
}
