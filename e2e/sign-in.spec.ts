/**
 * `wink-debug --auth oidc` in Chromium, against a real OpenID Provider (`oidc-provider`, on
 * loopback, with a login page and a consent page of its own): a deep link opened signed out
 * goes through the provider and comes back to the same view, drawn; a reload stays signed in;
 * the header says who is signed in and signs out, after which the API answers 401 again; and a
 * `return_to` pointing off-site lands inside the viewer. Screenshots of each step land in
 * test-results/screenshots/sign-in-*.png.
 *
 * Playwright's own `test` (not support/test.ts's): its navigations wait for the viewer to take
 * the page over, and half of these pages are the provider's.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { test } from "@playwright/test";
import type { Page } from "@playwright/test";
import { startTestProvider } from "../server/auth/oidc-provider.test-support.js";
import type { TestProvider } from "../server/auth/oidc-provider.test-support.js";
import { LONG_PATHS_WRITES, writeLongPathsRun } from "./fixtures/long-paths-run.js";
import { seriousViolations } from "./support/axe.js";
import { startServer } from "./support/server.js";
import type { RunningServer } from "./support/server.js";
import { expect, guard } from "./support/test.js";

const USER = "ada";
const EMAIL = "ada@example.test";
/** Turn 1's fifth `write_file` (events: the prompt, nine `read_file`, then the writes). */
const EVENT = 1 + LONG_PATHS_WRITES.length + 4;
/** Generous: two servers, Chromium and ~7 other test runs share two cores. */
const SLOW = { timeout: 30_000 };

let dir: string;
let secrets: string;
let file: string;
let provider: TestProvider;
let server: RunningServer;

test.beforeAll(async () => {
  test.setTimeout(120_000);
  dir = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-sign-in-"));
  // Outside the served folder: the viewer would list them otherwise.
  secrets = await mkdtemp(path.join(os.tmpdir(), "wink-e2e-sign-in-secrets-"));
  file = await writeLongPathsRun(dir);
  provider = await startTestProvider({ [USER]: { email: EMAIL, groups: [] } }, { consent: true });
  await writeFile(path.join(secrets, "client-secret"), provider.clientSecret);
  await writeFile(path.join(secrets, "session-secret"), "e2e-session-secret-".padEnd(48, "x"));
  server = await startServer(
    dir,
    [
      "--auth",
      "oidc",
      "--oidc-issuer",
      provider.issuer.href,
      "--oidc-client-id",
      provider.clientId,
      "--oidc-client-secret-file",
      path.join(secrets, "client-secret"),
      "--oidc-allowed-domains",
      "example.test",
      "--session-secret-file",
      path.join(secrets, "session-secret"),
    ],
    60_000,
  );
  // The callback is known once the viewer has its port.
  provider.start(new URL("auth/oidc/callback", server.url));
});

test.afterAll(async () => {
  await server?.stop();
  await provider?.close();
  await rm(dir, { recursive: true, force: true });
  await rm(secrets, { recursive: true, force: true });
});

/** The viewer has taken the page over (web/app/Root.tsx sets it). */
async function appReady(page: Page): Promise<void> {
  await page.locator("html[data-app=ready]").waitFor({ state: "attached", ...SLOW });
}

/** The API's answer to `page`'s cookies (the browser context's, shared by `page.request`). */
async function metaStatus(page: Page): Promise<{ status: number; code: unknown }> {
  const response = await page.request.get(`${server.url}api/meta`, { headers: { accept: "application/json" } });
  const body = (await response.json()) as { code?: unknown };
  return { status: response.status(), code: body.code };
}

/** At the provider's login page: signs in as `USER` and allows the viewer on the consent page. */
async function signInAtProvider(page: Page, shots?: (name: string) => Promise<void>): Promise<void> {
  await expect(page).toHaveURL(new RegExp(`^${provider.issuer.origin}/interaction/`), SLOW);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await page.getByLabel("User").fill(USER);
  await shots?.("sign-in-1-provider-login");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("heading", { name: "Allow access?" })).toBeVisible(SLOW);
  await expect(page.getByText(provider.clientId)).toBeVisible();
  await shots?.("sign-in-2-provider-consent");
  await page.getByRole("button", { name: "Allow" }).click();
}

test("a deep link opened signed out comes back drawn after sign-in; reload stays in; sign-out ends it", async ({ page }) => {
  test.setTimeout(180_000);
  const guarded = guard(page);
  const deepLink = `${server.url}?file=${encodeURIComponent(file)}&line=2&view=timeline&event=${EVENT}`;
  expect(await metaStatus(page)).toEqual({ status: 401, code: "WD_ERR_SIGN_IN" });

  // (1) Signed out, the deep link goes to the provider, and back to the same URL, drawn.
  await page.goto(deepLink);
  await signInAtProvider(page, (name) => guarded.shot(name));
  await expect(page).toHaveURL(deepLink, SLOW);
  await appReady(page);
  const detail = page.getByTestId("event-detail");
  await expect(detail).toBeVisible(SLOW);
  await expect(detail).toContainText("write_file");
  await expect(detail).toContainText(path.posix.basename(LONG_PATHS_WRITES[4] ?? ""));
  await expect(page.locator(`[data-testid=timeline-event][data-event="${EVENT}"]`)).toHaveAttribute("aria-current", "true");
  // The content the call wrote, in its editor (loaded lazily).
  await expect(detail.locator(".cm-editor")).toBeVisible(SLOW);
  const signedIn = page.getByTestId("signed-in");
  await expect(signedIn).toContainText(`Signed in as ${EMAIL}`, SLOW);
  await guarded.shot("sign-in-3-deep-link-drawn");
  expect(await seriousViolations(page)).toEqual([]);
  expect(await metaStatus(page)).toMatchObject({ status: 200 });

  // (2) A reload stays signed in, on the same view.
  await page.reload();
  await expect(page).toHaveURL(deepLink);
  await appReady(page);
  await expect(detail).toBeVisible(SLOW);
  await expect(detail).toContainText("write_file");
  await expect(signedIn).toContainText(EMAIL, SLOW);
  await guarded.shot("sign-in-4-reloaded");
  // On a laptop screen the header still holds the user and the button, whole.
  await page.setViewportSize({ width: 1024, height: 768 });
  const signOut = signedIn.getByRole("button", { name: "Sign out" });
  await expect(signOut).toBeInViewport({ ratio: 1 });
  await guarded.shot("sign-in-4-reloaded-1024");
  expect(await seriousViolations(page)).toEqual([]);

  // (3) Sign out: the server's signed-out page, and the API refuses this browser again.
  await signOut.click();
  await expect(page).toHaveURL(`${server.url}auth/signed-out`, SLOW);
  await expect(page.getByRole("heading", { name: "You are signed out of wink-debug" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Sign in again" })).toHaveAttribute("href", "/");
  await guarded.shot("sign-in-5-signed-out");
  expect(await seriousViolations(page)).toEqual([]);
  expect(await metaStatus(page)).toEqual({ status: 401, code: "WD_ERR_SIGN_IN" });
  expect(guarded.problems).toEqual([]);
});

test("a return_to pointing off-site lands inside the viewer", async ({ page }) => {
  test.setTimeout(180_000);
  const guarded = guard(page);
  const left: string[] = [];
  page.on("request", (request) => {
    const url = new URL(request.url());
    if (url.origin !== server.origin && url.origin !== provider.issuer.origin) left.push(request.url());
  });
  const hostile = ["//evil.example/steal", "https://evil.example/steal", "%2F%2Fevil.example", "/\\evil.example", `${server.origin.replace("127.0.0.1", "evil.example")}/`];
  for (const [index, returnTo] of hostile.entries()) {
    await page.goto(`${server.url}auth/oidc/login?${new URLSearchParams({ return_to: returnTo })}`);
    // The provider asks once; later sign-ins go through on its own session.
    if (index === 0) await signInAtProvider(page);
    // The viewer's root (where the app then opens the newest run), on the viewer's origin.
    await expect(page, `return_to=${returnTo}`).toHaveURL((url) => url.origin === server.origin && url.pathname === "/", SLOW);
    await appReady(page);
    await expect(page.getByRole("navigation", { name: "Runs" })).toBeVisible(SLOW);
    await expect(page.getByTestId("signed-in")).toContainText(EMAIL, SLOW);
  }
  await guarded.shot("sign-in-6-off-site-return-to");
  expect(left).toEqual([]);
  expect(guarded.problems).toEqual([]);
});
