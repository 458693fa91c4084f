/**
 * Entry point: a bundled run (`wink-debug bundle`) carries its files in the page and is
 * served by `LocalApi`; otherwise the app talks to the wink-debug server that served it.
 */
import { createRoot } from "react-dom/client";
import "./styles/app.css";
import type { Api } from "./api/api.js";
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

const container = document.getElementById("root");
if (container !== null) {
  const root = createRoot(container);
  startingApi().then(
    (api) => root.render(<Root initialApi={api} />),
    (error: unknown) => {
      container.textContent = `wink debug could not start: ${error instanceof Error ? error.message : String(error)}`;
    },
  );
}
