/**
 * The page's only script: starts the app (main.tsx) once the page as the server sent it has
 * been painted. Compiling and running the app is one long task of the main thread; started
 * before the first frame, it holds that frame (the landing page's failures, already in the
 * HTML) back until it ends. A hidden tab paints no frame, so it starts at once. The theme is
 * set first: the stylesheet is light until `data-theme` says dark.
 */
// The stylesheet is the page's (a <link> in its head, so the server's markup is drawn styled), not the app's chunk's.
import "./styles/index.css";
import { setThemeAttribute, startingTheme } from "./state/theme.js";

setThemeAttribute(startingTheme());

function start(): void {
  void import("./main.js");
}

if (document.visibilityState === "hidden") start();
// The frame's animation callback runs just before its paint; a task queued there runs after it.
else requestAnimationFrame(() => setTimeout(start, 0));
