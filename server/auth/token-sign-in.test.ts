// The CLI's `--auth token`, end to end over loopback: signed out the API answers 401; the URL
// printed at start signs in and lands on the same view without the token (so it is in no
// address bar, history or Referer); a wrong token is refused without being echoed, and
// attempts are rate-limited; no log line holds the token; and the cookie is good on a second
// instance that has the same session secret.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCli, stopClis } from "../cli.test-support.js";
import type { RunningCli } from "../cli.test-support.js";
import { cleanUp, snapshotLine, tempDir, writeSession } from "../server.test-support.js";

let dir: string;
let secretFile: string;

beforeAll(async () => {
  dir = await tempDir("wink-token-runs-");
  await writeSession(dir, "run-a.jsonl", [snapshotLine({ sessionId: "alpha" })]);
  secretFile = path.join(await tempDir("wink-token-secret-"), "session-secret");
  await writeFile(secretFile, "t".repeat(48), { mode: 0o600 });
});

afterAll(async () => {
  stopClis();
  await cleanUp();
});

/** The address and token the CLI printed once it listens. */
async function printedUrl(cli: RunningCli, timeoutMs = 60_000): Promise<{ base: string; token: string; url: string }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = /(http:\/\/127\.0\.0\.1:\d+\/)\?token=([0-9a-f]+)/.exec(cli.output());
    if (match !== null) return { url: match[0], base: match[1] as string, token: match[2] as string };
    if (Date.now() > deadline || cli.child.exitCode !== null) throw new Error(`no URL with a token printed; stdout: ${cli.output()} stderr: ${cli.errors()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function start(extra: string[] = []): RunningCli {
  return startCli([dir, "--port", "0", "--auth", "token", "--session-secret-file", secretFile, ...extra]);
}

const html = { accept: "text/html" };

/** The `name=value` of the session cookie a response sets. */
function sessionCookie(response: Response): string {
  const cookie = response.headers.get("set-cookie") ?? "";
  expect(cookie).toMatch(/^wink_session=[^;]+;.*HttpOnly/);
  return cookie.split(";")[0] as string;
}

describe("wink-debug --auth token", () => {
  it("signs in with the printed URL, lands without the token, refuses a wrong one and logs neither", async () => {
    // A wildcard address is allowed with a sign-in.
    const cli = start(["--host", "0.0.0.0", "--log-format", "json"]);
    const { base, token, url } = await printedUrl(cli);
    expect(token.length).toBeGreaterThanOrEqual(32);

    const meta = await fetch(`${base}api/meta`);
    expect(meta.status).toBe(401);
    expect(await meta.json()).toMatchObject({ code: "WD_ERR_SIGN_IN" });
    const signedOut = await fetch(`${base}?file=run-a.jsonl`, { redirect: "manual", headers: html });
    expect(signedOut.status).toBe(302);
    const signInPage = new URL(signedOut.headers.get("location") ?? "", base);
    expect(signInPage.pathname).toBe("/auth/token/sign-in");
    expect(signInPage.searchParams.get("return_to")).toBe("/?file=run-a.jsonl");
    const page = await fetch(signInPage, { headers: html });
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('name="token"');

    // The printed URL: a cookie, and the same address without the token.
    const exchange = await fetch(url, { redirect: "manual", headers: html });
    expect(exchange.status).toBe(302);
    expect(exchange.headers.get("location")).toBe("/");
    expect(exchange.headers.get("referrer-policy")).toBe("no-referrer");
    expect(exchange.headers.get("cache-control")).toBe("no-store");
    const cookie = sessionCookie(exchange);
    const view = await fetch(new URL(exchange.headers.get("location") ?? "", base), { headers: { ...html, cookie } });
    expect(view.status).toBe(200);
    expect(view.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await view.text()).not.toContain(token);
    expect((await fetch(`${base}api/meta`, { headers: { cookie } })).status).toBe(200);

    // A deep link keeps its other parameters, as written, in their order.
    const deep = await fetch(`${base}runs/run-a.jsonl?line=2&token=${token}&q=a%20b`, { redirect: "manual", headers: html });
    expect(deep.status).toBe(302);
    expect(deep.headers.get("location")).toBe("/runs/run-a.jsonl?line=2&q=a%20b");

    // A wrong token: refused, and not repeated in the answer.
    const wrong = `${"0".repeat(40)}deadbeef`;
    const refusedPage = await fetch(`${base}?token=${wrong}`, { redirect: "manual", headers: html });
    expect(refusedPage.status).toBe(401);
    expect(refusedPage.headers.get("set-cookie")).toBeNull();
    const refusedText = await refusedPage.text();
    expect(refusedText).toContain("That token is not this viewer");
    expect(refusedText).not.toContain(wrong);
    const refusedApi = await fetch(`${base}api/meta?token=${wrong}`);
    expect(refusedApi.status).toBe(401);
    const refusedBody = await refusedApi.text();
    expect(JSON.parse(refusedBody)).toMatchObject({ code: "WD_ERR_SIGN_IN" });
    expect(refusedBody).not.toContain(wrong);
    // A wrong token is no way around the cookie either: the request stays signed out.
    expect((await fetch(`${base}api/meta?token=${wrong}`, { redirect: "manual" })).headers.get("set-cookie")).toBeNull();

    // The access log: a line per request, the user once signed in, and neither token anywhere.
    const deadline = Date.now() + 10_000;
    const logLines = (): Record<string, unknown>[] =>
      cli
        .output()
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.msg === "request");
    while (logLines().length < 9 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const lines = logLines();
    expect(lines.length).toBeGreaterThanOrEqual(9);
    expect(lines.some((line) => line.user === "token" && line.status === 200)).toBe(true);
    expect(lines.some((line) => line.status === 401)).toBe(true);
    const stdout = cli.output();
    expect(stdout.split(token).length - 1, "the token is printed once, in the URL").toBe(1);
    expect(stdout).not.toContain(wrong);
    expect(cli.errors()).not.toContain(token);
  }, 120_000);

  it("brings a signed-out deep link back after the token is given on the sign-in page; a hostile return_to goes to the root", async () => {
    const cli = start();
    const { base, token } = await printedUrl(cli);
    const deepLink = "/?file=run-a.jsonl&line=1&view=timeline";
    const signedOut = await fetch(new URL(deepLink, base), { redirect: "manual", headers: html });
    expect(signedOut.status).toBe(302);
    const signInPage = new URL(signedOut.headers.get("location") ?? "", base);
    expect(signInPage.pathname).toBe("/auth/token/sign-in");
    expect(signInPage.searchParams.get("return_to")).toBe(deepLink);

    // The token given to the sign-in page (as `/auth/token/sign-in?token=…` links do): a cookie, then the deep link.
    signInPage.searchParams.set("token", token);
    const exchange = await fetch(signInPage, { redirect: "manual", headers: html });
    expect(exchange.status).toBe(302);
    expect(exchange.headers.get("location")).toBe(deepLink);
    const cookie = sessionCookie(exchange);
    const view = await fetch(new URL(deepLink, base), { redirect: "manual", headers: { ...html, cookie } });
    expect(view.status).toBe(200);
    expect(view.headers.get("content-type")).toMatch(/^text\/html/);

    // The page's own form: a GET to the deep link with its parameters and the token, exchanged there.
    const form = await (await fetch(new URL(signedOut.headers.get("location") ?? "", base), { headers: html })).text();
    expect(form).toContain('action="/"');
    expect(form).toContain('name="file" value="run-a.jsonl"');
    const submitted = await fetch(new URL(`${deepLink}&token=${token}`, base), { redirect: "manual", headers: html });
    expect(submitted.headers.get("location")).toBe(deepLink);

    // A return_to off the viewer is not followed, signed in or not.
    for (const hostile of ["//evil.example", "https://evil.example", "/\\evil.example", "%2F%2Fevil.example"]) {
      const url = `${base}auth/token/sign-in?return_to=${encodeURIComponent(hostile)}&token=${token}`;
      const answer = await fetch(url, { redirect: "manual", headers: html });
      expect([hostile, answer.status, answer.headers.get("location")]).toEqual([hostile, 302, "/"]);
    }
  }, 120_000);

  it("rate-limits token attempts per address (429), the right token included once over the limit", async () => {
    const cli = start();
    const { base, url } = await printedUrl(cli);
    const statuses: number[] = [];
    for (let i = 0; i < 32; i++) statuses.push((await fetch(`${base}api/meta?token=${"1".repeat(48)}`)).status);
    expect(statuses.slice(0, 30).every((status) => status === 401)).toBe(true);
    expect(statuses.slice(30)).toEqual([429, 429]);
    const limited = await fetch(url, { redirect: "manual" });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toMatchObject({ code: "WD_ERR_RATE_LIMITED" });
  }, 120_000);

  it("gives a cookie that a second instance with the same session secret accepts", async () => {
    const first = start();
    const second = start();
    const [one, two] = await Promise.all([printedUrl(first), printedUrl(second)]);
    expect(two.token).not.toBe(one.token);
    const cookie = sessionCookie(await fetch(one.url, { redirect: "manual" }));
    const meta = await fetch(`${two.base}api/meta`, { headers: { cookie } });
    expect(meta.status).toBe(200);
    // The first instance's token is not the second's.
    expect((await fetch(`${two.base}api/meta?token=${one.token}`)).status).toBe(401);
  }, 120_000);

  it("exits 2 on a token file too short to be a secret", async () => {
    const file = path.join(await tempDir("wink-token-file-"), "token");
    await writeFile(file, "short\n");
    const cli = start(["--token-file", file]);
    expect(await cli.exit).toBe(2);
    expect(cli.errors()).toContain("at least 32 characters");
    expect(cli.errors()).not.toContain("short");
  }, 90_000);
});
