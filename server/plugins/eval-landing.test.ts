// Where the bare landing URL goes, asked over loopback HTTP of a listening server: with more
// than one run in the target it is sent to the eval (`?view=eval`, under the base path of
// --public-url, the rest of the query kept); with one run, and wherever the URL names a run
// or a view, the page is sent as before (issue 30).
import type { AddressInfo } from "node:net";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AppOptions, WinkApp } from "../app.js";
import { parsePublicUrl } from "../http/public-address.js";
import { cleanUp, snapshotLine, tempDir, testApp, writeSession } from "../server.test-support.js";

async function webDir(): Promise<string> {
  const dir = path.join(await tempDir(), "web");
  await mkdir(path.join(dir, "assets"), { recursive: true });
  await writeFile(path.join(dir, "index.html"), '<!doctype html><html><head><title>app</title><script type="module" src="./assets/index.js"></script></head><body><div id="root"></div></body></html>');
  await writeFile(path.join(dir, "assets", "index.js"), "console.log('app')");
  return dir;
}

/** A listening app on loopback, and its origin. */
async function serve(options: Omit<AppOptions, "webDir">): Promise<{ app: WinkApp; origin: string }> {
  const app = await testApp({ ...options, webDir: await webDir(), bindHost: "127.0.0.1" });
  await app.app.listen({ host: "127.0.0.1", port: 0 });
  return { app, origin: `http://127.0.0.1:${(app.app.server.address() as AddressInfo).port}` };
}

async function page(url: string): Promise<Response> {
  return fetch(url, { redirect: "manual", headers: { accept: "text/html" } });
}

let twoRuns: string;
let oneRun: string;
let oneRunAndData: string;

beforeAll(async () => {
  twoRuns = await tempDir();
  await writeSession(twoRuns, "run-a.jsonl", [snapshotLine({ sessionId: "alpha" })]);
  await writeSession(twoRuns, "run-b.jsonl", [snapshotLine({ sessionId: "beta" })]);
  oneRun = await tempDir();
  await writeSession(oneRun, "run.jsonl", [snapshotLine({ sessionId: "solo" })]);
  oneRunAndData = await tempDir();
  await writeSession(oneRunAndData, "run.jsonl", [snapshotLine({ sessionId: "solo" })]);
  await writeFile(path.join(oneRunAndData, "truth.json"), JSON.stringify({ expected: ["a", "b"], score: 1 }));
});

afterAll(cleanUp);

describe("the bare landing URL of a target with more than one run", () => {
  it("is sent to the eval, the rest of its query kept", async () => {
    const { origin } = await serve({ path: twoRuns });
    for (const [target, location] of [
      ["/", "/?view=eval"],
      ["/?", "/?view=eval"],
      ["/index.html", "/?view=eval"],
      ["/?outcome=failed", "/?view=eval&outcome=failed"],
    ] as const) {
      const answer = await page(`${origin}${target}`);
      expect(answer.status, target).toBe(302);
      expect(answer.headers.get("location"), target).toBe(location);
    }
    // The redirect lands on a page.
    const followed = await fetch(`${origin}/`, { headers: { accept: "text/html" } });
    expect(followed.status).toBe(200);
    expect(followed.url).toBe(`${origin}/?view=eval`);
    expect(await followed.text()).toContain('<div id="root">');
  });

  it("is not sent anywhere when it names a run or a view (the newest run stays one click away: ?view=run)", async () => {
    const { origin } = await serve({ path: twoRuns });
    for (const target of ["/?view=run", "/?view=timeline", "/?file=run-a.jsonl", "/?view=eval", "/some/page"]) {
      const answer = await page(`${origin}${target}`);
      expect(answer.status, target).toBe(200);
    }
  });

  it("is sent to the eval under the public URL's base path", async () => {
    const { origin } = await serve({ path: twoRuns, publicAddress: parsePublicUrl("https://tools.example/wink/") });
    const answer = await page(`${origin}/wink/`);
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe("/wink/?view=eval");
    // The bare base path without its slash goes to the base path first, then to the eval.
    const bare = await page(`${origin}/wink`);
    expect(bare.status).toBe(308);
    expect(bare.headers.get("location")).toBe("/wink/");
    const followed = await fetch(`${origin}/wink`, { headers: { accept: "text/html" } });
    expect(followed.status).toBe(200);
    expect(followed.url).toBe(`${origin}/wink/?view=eval`);
  });
});

describe("the bare landing URL of a target with one run", () => {
  it("is the run's page, as before", async () => {
    const { origin } = await serve({ path: oneRun });
    for (const target of ["/", "/index.html", "/?outcome=failed"]) {
      const answer = await page(`${origin}${target}`);
      expect(answer.status, target).toBe(200);
      expect(answer.headers.get("location"), target).toBeNull();
    }
  });

  it("is the run's page beside a JSON document that is no run (a truth.json), once that file is read", async () => {
    const { origin } = await serve({ path: oneRunAndData });
    // Until truth.json is read it may be a session file, and the landing goes to the eval.
    let states: Record<string, string> = {};
    for (let attempt = 0; attempt < 100 && states["truth.json"] !== "not_session"; attempt++) {
      const runs = (await (await fetch(`${origin}/api/runs`)).json()) as { runs: { source: { path: string }; state: string }[] };
      states = Object.fromEntries(runs.runs.map((run) => [run.source.path, run.state]));
      if (states["truth.json"] !== "not_session") await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(states).toEqual({ "run.jsonl": "ready", "truth.json": "not_session" });
    const answer = await page(`${origin}/`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get("location")).toBeNull();
  });
});
