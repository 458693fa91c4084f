// The CLI's `--auth oidc`, end to end over loopback with a real OpenID Provider: from the very
// first request (the first stage holds it for the guard) the API answers 401 and pages go to
// sign-in, whose login sends the browser to the provider; bad options exit 2 naming what is missing.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCli, stopClis, waitForUrl } from "../cli.test-support.js";
import { cleanUp, snapshotLine, tempDir, writeSession } from "../server.test-support.js";
import { startTestProvider } from "./oidc-provider.test-support.js";
import type { TestProvider } from "./oidc-provider.test-support.js";

let dir: string;
let provider: TestProvider;
let args: string[];

beforeAll(async () => {
  dir = await tempDir("wink-served-sign-in-");
  await writeSession(dir, "run-a.jsonl", [snapshotLine({ sessionId: "alpha" })]);
  provider = await startTestProvider({ ada: { email: "ada@example.test", groups: [] } });
  // Discovery needs the provider up; the callback it would check is not reached here.
  provider.start(new URL("http://127.0.0.1:1/auth/oidc/callback"));
  await writeFile(path.join(dir, "..", "client-secret"), provider.clientSecret);
  await writeFile(path.join(dir, "..", "session-secret"), "s".repeat(48));
  args = ["--port", "0", "--auth", "oidc", "--oidc-issuer", provider.issuer.href, "--oidc-client-id", provider.clientId, "--oidc-client-secret-file", path.join(dir, "..", "client-secret"), "--oidc-allowed-domains", "example.test"];
});

afterAll(async () => {
  stopClis();
  await provider.close();
  await cleanUp();
});

describe("wink-debug --auth oidc", () => {
  it("holds the first request for the guard: 401 for the API, sign-in for pages, the provider for login", async () => {
    const cli = startCli([dir, ...args, "--session-secret-file", path.join(dir, "..", "session-secret")]);
    const base = await waitForUrl(cli.output, 60_000);
    const meta = await fetch(`${base}api/meta`);
    expect(meta.status).toBe(401);
    expect(await meta.json()).toMatchObject({ code: "WD_ERR_SIGN_IN" });
    const page = await fetch(`${base}?file=run-a.jsonl`, { redirect: "manual", headers: { accept: "text/html" } });
    expect(page.status).toBe(302);
    const signIn = new URL(page.headers.get("location") ?? "", base);
    expect(signIn.pathname).toBe("/auth/oidc/login");
    expect(signIn.searchParams.get("return_to")).toBe("/?file=run-a.jsonl");
    const login = await fetch(signIn, { redirect: "manual" });
    expect(login.status).toBe(302);
    const authorize = new URL(login.headers.get("location") ?? "");
    expect(authorize.origin).toBe(provider.issuer.origin);
    expect(authorize.searchParams.get("code_challenge_method")).toBe("S256");
    expect(authorize.searchParams.get("redirect_uri")).toBe(`${base}auth/oidc/callback`);
  }, 90_000);

  it("exits 2 naming the missing session secret", async () => {
    const cli = startCli([dir, ...args], { env: { ...process.env, WINK_SESSION_SECRET: "" } });
    expect(await cli.exit).toBe(2);
    expect(cli.errors()).toContain("--session-secret-file");
  }, 90_000);
});
