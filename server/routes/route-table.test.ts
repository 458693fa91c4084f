// Every /api route the server registers is an entry of the viewer's route table, with the
// entry's method, and every entry is registered: the table is the whole contract. And every
// entry is documented in docs/api.md, so a new route cannot ship without its paragraph.
import { readFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { WINK_FIXTURES } from "../../fixtures/paths.js";
import { VIEWER_ROUTES } from "../../shared/viewer/routes/index.js";
import { buildApp } from "../app.js";
import type { WinkApp } from "../app.js";

const apps: WinkApp[] = [];
afterAll(async () => {
  for (const { app } of apps) await app.close();
});

describe("the route table", () => {
  it("lists exactly the /api routes the server registers", async () => {
    const registered = new Set<string>();
    const built = await buildApp({
      path: WINK_FIXTURES,
      watch: false,
      indexInBackground: false,
      onRoute: ({ method, url }) => {
        // Fastify adds a HEAD route beside each GET.
        for (const one of typeof method === "string" ? [method] : method) if (one !== "HEAD" && url.startsWith("/api/")) registered.add(`${one} ${url}`);
      },
    });
    apps.push(built);
    await built.app.ready();
    const table = new Set(Object.values(VIEWER_ROUTES).map((entry) => `${entry.method} ${entry.url}`));
    expect([...registered].filter((route) => !table.has(route)), "registered, not in the table").toEqual([]);
    expect([...table].filter((route) => !registered.has(route)), "in the table, not registered").toEqual([]);
    expect(table.size).toBe(Object.keys(VIEWER_ROUTES).length);
  });

  it("is documented in docs/api.md, each route's path in code (`GET /api/run?file`, `/api/files/{member}`)", async () => {
    const doc = await readFile(path.join(import.meta.dirname, "..", "..", "docs", "api.md"), "utf8");
    const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    // A path parameter as the docs write it (`:name`, `{name}`, `<name>`), and the rest of the path (`*`) the same way.
    const segment = (part: string) => (part.startsWith(":") ? String.raw`(?::\w+|\{\w+\}|<\w+>)` : part === "*" ? String.raw`(?:\*|\{\w+\}|<\w+>)` : escape(part));
    const documented = (url: string) => new RegExp("`(?:(?:GET|POST) )?" + url.split("/").map(segment).join("/") + "(?=[`?\\s])").test(doc);
    const undocumented = Object.entries(VIEWER_ROUTES).filter(([, entry]) => !documented(entry.url));
    expect(undocumented.map(([name, entry]) => `${name}: ${entry.method} ${entry.url}`)).toEqual([]);
  });
});
