/**
 * The `test` every spec uses: its `page` fails the test on any console error, uncaught
 * page error, dialog (alert/confirm/prompt) or request to a host other than the app's own
 * (or `file:`/`data:`/`blob:` URLs), and a `shot` helper that saves a screenshot of the
 * current view under test-results/screenshots/.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { test as base, expect } from "@playwright/test";
import type { Page } from "@playwright/test";
import { REPO } from "./server.js";

export const SCREENSHOTS = path.join(REPO, "test-results", "screenshots");

export interface Guarded {
  /** Problems seen so far (console errors, page errors, dialogs, foreign requests). */
  readonly problems: string[];
  shot(name: string): Promise<void>;
}

const LOCAL = /^(https?:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?\/|file:|data:|blob:|about:)/;

export function guard(page: Page): Guarded {
  const problems: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
  page.on("dialog", (dialog) => {
    problems.push(`dialog: ${dialog.type()} ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on("request", (request) => {
    if (!LOCAL.test(request.url())) problems.push(`foreign request: ${request.url()}`);
  });
  return {
    problems,
    async shot(name: string) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`) });
    },
  };
}

/**
 * Navigations wait until the app has taken the page over (`html[data-app=ready]`, set by
 * web/app/Root.tsx): the landing page arrives drawn by the server and the app starts only
 * after its first frame (web/boot.ts), so a click or a key right after `goto` could meet
 * the drawing alone. Only HTML documents (and files) are waited for.
 */
function waitForApp(page: Page): void {
  for (const name of ["goto", "reload"] as const) {
    const navigate = page[name].bind(page) as (...args: unknown[]) => ReturnType<Page["goto"]>;
    page[name] = (async (...args: unknown[]) => {
      const response = await navigate(...args);
      const html = response === null ? page.url().startsWith("file:") : (response.headers()["content-type"] ?? "").startsWith("text/html");
      if (html) await page.locator("html[data-app=ready]").waitFor({ state: "attached" });
      return response;
    }) as Page[typeof name];
  }
}

export const test = base.extend<{ guarded: Guarded }>({
  page: async ({ page }, use) => {
    waitForApp(page);
    await use(page);
  },
  guarded: async ({ page }, use) => {
    const guarded = guard(page);
    await use(guarded);
    expect(guarded.problems, "console errors, dialogs or foreign requests").toEqual([]);
  },
});

/** The screens the review journeys are checked at: a desktop and a laptop. */
export const REVIEW_SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 768 },
] as const;

export { expect };
