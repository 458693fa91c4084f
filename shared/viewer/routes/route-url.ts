/**
 * A request's URL built from a route's place (its path and its list parameters), and WINK's
 * comma lists written and read back: the web app's requests and the server's handlers use
 * the same functions. Browser-safe and schema-free: the browser's main chunk imports it.
 */

/** What `routeUrl` reads of a route's entry (`table.ts`): its path and its list parameters. */
export interface RoutePlace {
  /** Fastify's path syntax: `:name` a path parameter, a final `*` the rest of the path (both in `params`). */
  readonly url: `/api/${string}`;
  readonly lists?: readonly string[];
}

/** The path parameters of a Fastify path: `:name` segments and a final `*`. */
function pathParameters(url: string): string[] {
  return url.split("/").flatMap((segment) => (segment.startsWith(":") ? [segment.slice(1)] : segment === "*" ? ["*"] : []));
}

/** What a request's URL is built from: its query and its path parameters, in one object (an entry's `lists` as lists). */
export type RouteValues = Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>;

/** The names of `Entry`'s list parameters (none for most routes). */
export type ListNames<Entry> = Entry extends { readonly lists: readonly (infer Name extends string)[] } ? Name : never;

/** A request as its caller gives it: the wire's `Input` with the parameters named `Lists` as lists of strings. */
export type WithLists<Input, Lists extends string> = [Lists] extends [never] ? Input : { [Key in keyof Input]: Key extends Lists ? readonly string[] | undefined : Input[Key] };

/** WINK's filter syntax for a list: its values joined by commas; none or an empty list, no filter (undefined). */
export function joinList(values: readonly string[] | undefined): string | undefined {
  return values === undefined || values.length === 0 ? undefined : values.join(",");
}

/** A WINK comma list read back: split, trimmed, empty values dropped; nothing left, no filter (undefined). */
export function splitList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  const values = value
    .split(",")
    .map((part) => part.trim())
    .filter((part) => part !== "");
  return values.length === 0 ? undefined : values;
}

/**
 * A request with `entry`'s list parameters read as the server reads them: a comma list (off
 * the wire) is split, a list (from a caller in the page) goes through the same join and split,
 * so both layers filter on exactly the same values.
 */
export function readLists<Input extends object, Name extends string = never>(entry: { readonly lists?: readonly Name[] }, input: Input): Omit<Input, Name> & { readonly [Key in Name]?: string[] | undefined } {
  const read: Record<string, unknown> = { ...(input as Record<string, unknown>) };
  for (const name of entry.lists ?? []) {
    const value = read[name] as string | readonly string[] | undefined;
    read[name] = splitList(typeof value === "string" || value === undefined ? value : joinList(value));
  }
  return read as Omit<Input, Name> & { readonly [Key in Name]?: string[] | undefined };
}

/**
 * The path and query string of a request to `entry`: path parameters in the path (each
 * segment of `*` encoded on its own, so `/` stays a separator), the rest in the query string;
 * the entry's list parameters as comma lists (`joinList`); undefined values and empty lists are
 * left out. Typed callers pass the table's `RouteRequest` of the route.
 */
export function routeUrl(entry: RoutePlace, input: object): string {
  const values = input as RouteValues;
  const inPath = new Set(pathParameters(entry.url));
  const path = entry.url
    .split("/")
    .map((segment) => {
      const name = segment.startsWith(":") ? segment.slice(1) : segment === "*" ? "*" : null;
      if (name === null) return segment;
      const value = values[name];
      if (value === undefined) throw new Error(`${entry.url}: the path parameter ${name} is missing`);
      return name === "*" ? String(value).split("/").map(encodeURIComponent).join("/") : encodeURIComponent(String(value));
    })
    .join("/");
  const search = new URLSearchParams();
  const lists = new Set(entry.lists);
  for (const [key, raw] of Object.entries(values)) {
    const value = lists.has(key) && Array.isArray(raw) ? joinList(raw as readonly string[]) : raw;
    if (value !== undefined && !inPath.has(key)) search.set(key, String(value));
  }
  const query = search.toString();
  return query === "" ? path : `${path}?${query}`;
}
