/**
 * Entry point: a bundled run (`wink-debug bundle`) carries its files in the page and is
 * served by `LocalApi`; otherwise the app talks to the wink-debug server that served it.
 */
import { createRoot, hydrateRoot } from "react-dom/client";
import type { Api, RunResponse } from "./api/api.js";
import { HttpApi } from "./api/http-api.js";
import { Root } from "./app/Root.js";
import { applyTheme } from "./state/preferences.js";

applyTheme();

async function startingApi(): Promise<Api> {
  const bundled = document.getElementById("wink-bundle");
  if (bundled === null) return new HttpApi();
  const { readBundledRun } = await import("./api/bundle-data.js");
  return readBundledRun(bundled.textContent ?? "");
}

/**
 * The run the server rendered the landing page from (server/plugins/server-render.ts), or
 * undefined: then the page holds no server markup and the app renders from scratch.
 */
function landingRun(container: HTMLElement): RunResponse | undefined {
  const data = document.getElementById("wink-landing-run");
  if (data === null || container.firstElementChild === null) return undefined;
  try {
    return JSON.parse(data.textContent ?? "") as RunResponse;
  } catch {
    return undefined;
  }
}

const container = document.getElementById("root");
const rendered = container === null ? undefined : landingRun(container);
if (container !== null && rendered !== undefined) {
  // The same first render as the server's, over its markup: no second fetch, nothing redrawn.
  hydrateRoot(container, <Root initialApi={new HttpApi()} landingRun={rendered} />);
} else if (container !== null) {
  const root = createRoot(container);
  startingApi().then(
    (api) => root.render(<Root initialApi={api} />),
    (error: unknown) => {
      container.textContent = `wink debug could not start: ${error instanceof Error ? error.message : String(error)}`;
    },
  );
}
