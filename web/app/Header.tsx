/** The top bar: what is being viewed, and the global actions. */
import { useIsFetching } from "@tanstack/react-query";
import { useRef } from "react";
import { useApi } from "../api/context.js";
import { Icon } from "../components/Icon.js";
import { Link } from "../components/Link.js";
import { signOut } from "../api/signed-in-user.js";
import { useLocalOpener } from "../features/drop/DropZone.js";
import { useSignedInUser } from "../queries/hooks.js";
import { getPreferences, setPreference, usePreferences } from "../state/preferences.js";
import { overlay } from "../state/store.js";
import type { SourceSwitch } from "./source-switch.js";

export function Header({ source, onReload }: { source: SourceSwitch; onReload: () => void }) {
  const api = useApi();
  const { theme } = usePreferences();
  const fetching = useIsFetching() > 0;
  const picker = useRef<HTMLInputElement>(null);
  const openLocal = useLocalOpener(source.openLocal);
  // Served with sign-in: who is signed in, and the way out (offline files have no session).
  const user = useSignedInUser(api.kind === "http").data ?? null;
  return (
    <header className="app-header">
      <button type="button" className="icon-btn sidebar-toggle" onClick={() => setPreference("sidebarCollapsed", !getPreferences().sidebarCollapsed)} aria-label="Toggle sidebar ([)" title="Toggle sidebar ([)">
        <Icon name="sidebar" />
      </button>
      <div className="brand">
        <h1>
          <span className="eyebrow">wink debug</span> Run Explorer
        </h1>
      </div>
      <div className="source" title={api.label}>
        {api.kind === "local" ? <span className="tag tag-accent">offline</span> : null}
        <span className="mono source-label">{api.label}</span>
        {source.backToServer !== null ? (
          <button type="button" className="btn btn-small" onClick={source.backToServer}>
            Back to server
          </button>
        ) : null}
      </div>
      <div className="header-actions">
        {/* The failures across every run of the target. */}
        <Link to={{ view: "eval", panel: undefined, entry: undefined }} className="btn btn-small" data-testid="open-eval" title="Failures across every run (the eval)">
          Eval
        </Link>
        <button type="button" className="kbd-chip" onClick={() => overlay.set("palette")} title="Command palette (⌘K / Ctrl+K)" aria-keyshortcuts="Control+K Meta+K">
          <Icon name="search" size={14} /> <span>Search commands…</span> <kbd className="kbd" aria-hidden="true">⌘K</kbd>
        </button>
        <input
          ref={picker}
          type="file"
          multiple
          accept=".jsonl,.json,.zip"
          className="offscreen"
          tabIndex={-1}
          aria-hidden="true"
          data-testid="file-picker"
          onChange={(event) => {
            // Copied now: the FileList is live and emptied when the input is reset below.
            const files = [...(event.target.files ?? [])];
            if (files.length > 0) openLocal(import("../features/drop/read-dropped.js").then((module) => module.readFileList(files)));
            event.target.value = "";
          }}
        />
        <button type="button" className="icon-btn" onClick={() => picker.current?.click()} aria-label="Open local files" title="Open .jsonl and .fs.zip files from disk (or drop them on the page)">
          <Icon name="upload" />
        </button>
        <button type="button" className="icon-btn" onClick={onReload} aria-label="Reload (R)" title="Reload (R)">
          <Icon name="refresh" className={fetching ? "spin" : undefined} />
        </button>
        <button type="button" className="icon-btn" onClick={() => setPreference("theme", theme === "dark" ? "light" : "dark")} aria-label={theme === "dark" ? "Switch to light theme (D)" : "Switch to dark theme (D)"} title="Toggle theme (D)" data-testid="theme-toggle">
          <Icon name={theme === "dark" ? "sun" : "moon"} />
        </button>
        <button type="button" className="icon-btn" onClick={() => overlay.set("help")} aria-label="Keyboard shortcuts (?)" title="Keyboard shortcuts (?)">
          <Icon name="keyboard" />
        </button>
        {user === null ? null : (
          <div className="signed-in" data-testid="signed-in">
            <span className="signed-in-name" title={`Signed in as ${user.name}`}>
              <span className="signed-in-label">Signed in as </span>
              <strong>{user.name}</strong>
            </span>
            {user.canSignOut ? (
              <button type="button" className="btn btn-small" onClick={() => void signOut()} data-testid="sign-out">
                Sign out
              </button>
            ) : null}
          </div>
        )}
      </div>
    </header>
  );
}
