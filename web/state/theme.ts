/**
 * The theme as stored (`wink-theme`, the original viewer's key) or, unset, as the system
 * prefers it; and the stylesheet's switch for it. No React here: web/boot.ts sets the theme
 * with it before the first frame, so a dark page is never first drawn light.
 */
export type Theme = "light" | "dark";

export const THEME_KEY = "wink-theme";

/** localStorage, or null where it is blocked (some file:// setups): preferences then last for the page. */
export function storage(): Storage | null {
  try {
    return typeof localStorage === "undefined" ? null : localStorage;
  } catch {
    return null;
  }
}

export function startingTheme(store: Storage | null = storage()): Theme {
  const theme = store?.getItem(THEME_KEY);
  if (theme === "dark" || theme === "light") return theme;
  return typeof matchMedia === "function" && matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light";
}

/** Sets `data-theme` on `<html>` (the stylesheet's switch). */
export function setThemeAttribute(theme: Theme): void {
  document.documentElement.dataset.theme = theme;
}
