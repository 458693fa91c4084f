/**
 * `Api` over a wink-debug server. Responses are read with the shared lossless parser, not
 * `response.json()`: integers beyond 2^53 arrive as `bigint`, so what the user sees is
 * exactly what the agent wrote.
 */
import { parsePythonJson } from "../../shared/session/browser.js";
import { routeUrl } from "../../shared/viewer/routes/browser.js";
import type { RouteEntry, RouteRequest } from "../../shared/viewer/routes/index.js";
import { ASKED_ROUTES, ROUTES } from "./routes.js";
import type { BrowserRoute, RouteCalls, RouteParams } from "./routes.js";
import type { Api, ChangeNotice } from "./api.js";
import { ApiError } from "./api.js";
import { subscribeShared } from "./shared-events.js";
import type * as T from "./api.js";
import { pageBasePath } from "./page-base.js";
import type { JsonRoute, RouteGet } from "./route-get.js";

/**
 * Reads a response body as JSON; throws `ApiError` with the server's detail. `lossless`
 * keeps integers beyond 2^53 exact (as `bigint`): needed where agent data is free-form
 * (slice items). Other answers have only counts, sizes and strings, and skip the extra
 * pass (a 50,000-file tree is 6 MB of JSON).
 */
export async function readJson(response: Response, lossless = true): Promise<unknown> {
  const text = await response.text();
  let body: unknown = null;
  try {
    body = text === "" ? null : lossless ? parsePythonJson(text) : JSON.parse(text);
  } catch {
    if (response.ok) throw new ApiError(response.status, `The server sent a response that is not JSON (${response.url})`);
  }
  if (!response.ok) {
    const fields = typeof body === "object" && body !== null ? (body as { detail?: unknown; code?: unknown }) : {};
    const detail = typeof fields.detail === "string" ? fields.detail : `${response.status} ${response.statusText}`;
    throw new ApiError(response.status, detail, typeof fields.code === "string" ? fields.code : null);
  }
  return body;
}

export class HttpApi implements Api {
  readonly kind = "http" as const;
  label = "";

  /** `base`: what every URL starts with, by default the page's base path (`--public-url`). */
  constructor(private readonly base: string = pageBasePath()) {}

  /**
   * Every asked route is one request through `get`, sent as the route's own request (no
   * parameter is renamed or rebuilt here; the entry's `lists` become comma lists in `routeUrl`); `runs` also names the source, as `files` does.
   * Built by a loop, which the compiler cannot follow name by name: each call is `get` on
   * the route of its own name, and `RouteCalls` types it from that route's entry.
   */
  readonly ask: RouteCalls = {
    ...(Object.fromEntries(ASKED_ROUTES.map((name) => [name, (params: object) => this.get(ROUTES[name] as BrowserRoute<JsonRoute>, params)])) as unknown as RouteCalls),
    runs: async (params) => {
      const list = await this.get(ROUTES.runs, params);
      this.label = list.root;
      return list;
    },
  };

  /**
   * Every JSON request of the app: the route's URL under the base path, read losslessly
   * where the entry says its answer carries agent data. The answer is typed by the entry's
   * schema, not checked against it (the server validated it on the way out).
   */
  readonly get: RouteGet = async (route, params) => {
    let response: Response;
    try {
      response = await fetch(this.url(route, params), { headers: { accept: "application/json" } });
    } catch (error) {
      throw new ApiError(0, `Cannot reach the wink-debug server (${error instanceof Error ? error.message : String(error)})`);
    }
    return (await readJson(response, route.lossless === true)) as never;
  };

  /** The URL of a request to `route`, under the base path (also the download link's and the event stream's). */
  url<const Entry extends RouteEntry>(route: BrowserRoute<Entry>, params: RouteRequest<Entry>): string {
    return `${this.base}${routeUrl(route, params)}`;
  }

  /** Every session file: the server answers a page of them at a time (500 by default). */
  async files(): Promise<T.FileListResponse> {
    const list = await this.get(ROUTES.files, {});
    while (list.files.length < list.total) {
      const next = await this.get(ROUTES.files, { offset: list.files.length });
      if (next.files.length === 0) break;
      list.files.push(...next.files);
    }
    this.label = list.root;
    return list;
  }

  async download(params: RouteParams<"download">): Promise<void> {
    // The server answers with `content-disposition: attachment` and a sandboxing CSP, so
    // following the link saves the file and never shows it as a page of this origin.
    const link = document.createElement("a");
    link.href = this.url(ROUTES.download, params);
    link.download = params.path.slice(params.path.lastIndexOf("/") + 1);
    link.rel = "noopener";
    document.body.append(link);
    link.click();
    link.remove();
  }

  subscribe(onChange: (notice: T.LiveNotice) => void): () => void {
    return subscribeShared(this.url(ROUTES.events, {}), (event) => {
      if (event.type === "indexed") return onChange("indexed");
      if (event.type !== "change" || event.data === null) return onChange(null);
      try {
        onChange(parsePythonJson(event.data) as unknown as ChangeNotice);
      } catch {
        onChange(null);
      }
    });
  }

}
