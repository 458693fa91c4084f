/**
 * Issue 33, item 2, for real: a real nginx store served with `-r` where one subfolder
 * answers a 301 to another host. The redirect stays unfollowed (another host could be
 * anyone's), the subfolder is listed as skipped with the reason — in `/api/runs` (which the
 * sidebar shows) and on stderr — and the other runs are served. It used to stop the start
 * with exit 4.
 */
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { type NginxServer, startNginx } from "../shared/remote/test-servers/nginx.test-support.js";
import { startCli, stopClis, waitForUrl } from "./cli.test-support.js";
import { cleanUp, snapshotLine, tempDir } from "./server.test-support.js";

let nginx: NginxServer;
let served: string;

beforeAll(async () => {
  served = await tempDir("wink-redirect-");
  await mkdir(path.join(served, "kept"));
  await mkdir(path.join(served, "moved"));
  await writeFile(path.join(served, "top.jsonl"), `${snapshotLine({ sessionId: "top" })}\n`);
  await writeFile(path.join(served, "kept", "deep.jsonl"), `${snapshotLine({ sessionId: "deep" })}\n`);
  await writeFile(path.join(served, "moved", "away.jsonl"), `${snapshotLine({ sessionId: "away" })}\n`);
  nginx = await startNginx(served);
}, 60_000);

afterAll(async () => {
  await nginx?.stop();
  await cleanUp();
});

afterEach(() => stopClis());

interface RunList {
  runs: { source: { path: string } }[];
  store: { listing: { done: boolean; skipped_folders: { prefix: string; reason: string }[] } };
}

describe("a subfolder that redirects to another host (issue 33, item 2)", () => {
  it("is skipped with its reason in /api/runs and on stderr; the rest of the store is served", async () => {
    const root = `${nginx.url}redirecting/`;
    // The folder does redirect off-host: nginx answers it with a 301 to elsewhere.invalid.
    const moved = await fetch(`${root}moved/`, { redirect: "manual" });
    expect(moved.status).toBe(301);
    expect(moved.headers.get("location")).toBe("http://elsewhere.invalid/moved/");

    const cli = startCli([root, "-r", "--port", "0"]);
    // The CLI prints the store's URL too: the viewer's is the other one.
    const url = await waitForUrl(() => cli.output().replaceAll(nginx.url, ""), 60_000);
    const list = (await (await fetch(`${url}api/runs`)).json()) as RunList;
    expect(list.runs.map((run) => run.source.path).sort()).toEqual(["kept/deep.jsonl", "top.jsonl"]);
    expect(list.store.listing.done).toBe(true);
    expect(list.store.listing.skipped_folders).toHaveLength(1);
    expect(list.store.listing.skipped_folders[0]?.prefix).toBe("moved/");
    expect(list.store.listing.skipped_folders[0]?.reason).toMatch(/redirects to another host \(http:\/\/elsewhere\.invalid\/moved\/\); not followed/);
    expect(cli.errors()).toMatch(/Skipped moved\/: .*redirects to another host .*not followed/);
    // The other runs open.
    const run = await fetch(`${url}api/run?file=kept/deep.jsonl`);
    expect(run.status).toBe(200);
    expect(((await run.json()) as { root_session_id: string }).root_session_id).toBe("deep");
  }, 90_000);
});
