// What the web app's first download takes from the viewer model: small, side-effect-free
// modules only. The entry (index.ts) re-exports every view computation and its schemas, and a
// bundler keeps a barrel's schema modules (their top-level `Type.*` calls) for any one name
// imported through it, so the app's first screens import from here.
export { outcomeText } from "./outcome-text.js";
export type { OutcomeFigures } from "./outcome-text.js";
export { RUN_FAILURE_PAGE_LIMIT, RUN_SESSION_PAGE_LIMIT } from "./run-bounds.js";
