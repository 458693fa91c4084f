// The CLI's `--host` and sign-in: an address other machines reach (a wildcard, a LAN
// address, a name) without `--auth` is refused at start (exit 2) with the sign-in options
// named; loopback stays the local default, answered with no sign-in.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCli, stopClis, waitForUrl } from "../cli.test-support.js";
import { cleanUp, snapshotLine, tempDir, writeSession } from "../server.test-support.js";

let dir: string;

beforeAll(async () => {
  dir = await tempDir("wink-loopback-host-");
  await writeSession(dir, "run-a.jsonl", [snapshotLine({ sessionId: "alpha" })]);
});

afterAll(async () => {
  stopClis();
  await cleanUp();
});

describe("wink-debug --host without --auth", () => {
  // 192.0.2.10 (TEST-NET-1) is no address of this machine: the refusal comes before any bind.
  it.each(["0.0.0.0", "::", "192.0.2.10", "wink.example"])("refuses %s: exit 2, naming --auth oidc|proxy|token", async (host) => {
    const cli = startCli([dir, "--host", host, "--port", "0"]);
    expect(await cli.exit).toBe(2);
    expect(cli.errors()).toContain(`--host ${host} is not a loopback address`);
    expect(cli.errors()).toContain("--auth oidc|proxy|token");
    expect(cli.output()).not.toMatch(/http:\/\//);
  }, 90_000);

  it("serves loopback as before: no sign-in, /api/meta answered", async () => {
    const cli = startCli([dir, "--host", "127.0.0.1", "--port", "0"]);
    const base = await waitForUrl(cli.output, 60_000);
    const meta = await fetch(`${base}api/meta`);
    expect(meta.status).toBe(200);
    expect(meta.headers.get("set-cookie")).toBeNull();
    const page = await fetch(base, { headers: { accept: "text/html" }, redirect: "manual" });
    expect(page.status).toBe(200);
  }, 90_000);
});
