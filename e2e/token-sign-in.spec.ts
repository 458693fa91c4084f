/**
 * `--auth token` in Chromium: the printed URL signs in and the viewer is left at the same
 * address without the token (no request the page makes carries it, in its URL or a
 * Referer); a deep link opened signed out goes to the sign-in page, where pasting the token
 * lands on that deep link, again without the token.
 */
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { dumpsPython } from "../shared/session/index.js";
import { REPO, cliCommand } from "./support/server.js";
import { expect, test } from "./support/test.js";

let dir: string;
let viewer: ChildProcess;
let base: string;
let token: string;

const line = (agent: string) =>
  dumpsPython({ children_ids: [], created_at: "2026-11-22T01:00:00.000000+00:00", parent_id: null, slices: [], tags: { agent, session_id: `${agent}-session` }, version: "1" }, { sortKeys: true });

test.beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-token-"));
  await writeFile(path.join(dir, "run-alpha.jsonl"), `${line("alpha")}\n`);
  await writeFile(path.join(dir, "run-beta.jsonl"), `${line("beta")}\n`);
  const { command, args } = cliCommand([dir, "--port", "0", "--no-open", "--no-cache", "--auth", "token"]);
  viewer = spawn(command, args, { cwd: REPO, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, NODE_ENV: "production" } });
  let output = "";
  [base, token] = await new Promise<[string, string]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`wink-debug did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /(http:\/\/127\.0\.0\.1:\d+\/)\?token=([0-9a-f]+)/.exec(output);
      if (match !== null) {
        clearTimeout(timer);
        resolve([match[1] as string, match[2] as string]);
      }
    };
    viewer.stdout?.on("data", onData);
    viewer.stderr?.on("data", onData);
  });
});

test.afterAll(async () => {
  viewer?.kill("SIGTERM");
  await rm(dir, { recursive: true, force: true });
});

test("the printed URL signs in and leaves the token out of the address and every request", async ({ page, guarded }) => {
  const carried: string[] = [];
  page.on("request", (request) => {
    const referer = request.headers().referer ?? "";
    if (referer.includes(token)) carried.push(`Referer of ${request.url()}: ${referer}`);
    if (request.url().includes(token) && !request.isNavigationRequest()) carried.push(`request: ${request.url()}`);
  });
  const landing = await page.goto(`${base}?token=${token}`);
  // Through the exchange's redirect: the document is the viewer's, at the address without the
  // token, which (two runs) is sent on to the eval.
  expect(landing?.request().redirectedFrom()?.redirectedFrom()?.url()).toBe(`${base}?token=${token}`);
  expect(landing?.request().redirectedFrom()?.url()).toBe(base);
  expect(landing?.url()).toBe(`${base}?view=eval`);
  const sidebar = page.getByRole("navigation", { name: "Runs" });
  await expect(sidebar.getByText(/alpha/).first()).toBeVisible();
  expect(page.url()).not.toContain("token");
  await sidebar.getByText(/alpha/).first().click();
  await expect(page).toHaveURL(/\?.*file=run-alpha\.jsonl/);
  await page.reload();
  await expect(page.getByText(/alpha/).first()).toBeVisible();
  expect(page.url()).not.toContain(token);
  expect(await page.evaluate<string>("document.referrer")).toBe("");
  expect(carried).toEqual([]);
  expect(guarded.problems).toEqual([]);
});

test("a deep link opened signed out goes to sign-in; the token pasted there lands on it", async ({ page }) => {
  // Not page.goto: the sign-in page is no viewer page, and the fixture's goto waits for the viewer.
  await page.evaluate(`location.assign(${JSON.stringify(`${base}?file=run-beta.jsonl`)})`);
  await expect(page).toHaveURL(/\/auth\/token\/sign-in\?return_to=/);
  await expect(page.getByRole("heading", { name: "Sign in to wink-debug" })).toBeVisible();
  await page.getByLabel("Token").fill(`${token.slice(0, -1)}${token.endsWith("0") ? "1" : "0"}`);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("That token is not this viewer")).toBeVisible();
  await page.getByLabel("Token").fill(token);
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${base}?file=run-beta.jsonl`);
  await expect(page.getByText(/beta/).first()).toBeVisible();
});
