/**
 * The command palette (⌘K / Ctrl+K): actions, views, slices, sessions (their snapshots, by
 * agent and turn) and files of the selected snapshot, filtered by substring with the match highlighted. ↑/↓ move, Enter
 * runs, Esc or the backdrop closes, hover selects.
 */
import { useEffect, useMemo, useRef, useState } from "react";
import { useKeymap } from "../../state/shortcuts.js";

export interface Command {
  readonly id: string;
  readonly group: "Actions" | "Views" | "Slices" | "Sessions" | "Files";
  readonly title: string;
  readonly subtitle?: string;
  /** Also matched by the filter, not shown (a session's full id). */
  readonly keywords?: string;
  readonly shortcut?: string;
  readonly run: () => void;
}

const MAX_PER_GROUP = 12;
const GROUPS: readonly Command["group"][] = ["Actions", "Views", "Slices", "Sessions", "Files"];

function Highlighted({ text, needle }: { text: string; needle: string }) {
  const at = needle === "" ? -1 : text.toLowerCase().indexOf(needle);
  if (at === -1) return <>{text}</>;
  return (
    <>
      {text.slice(0, at)}
      <mark>{text.slice(at, at + needle.length)}</mark>
      {text.slice(at + needle.length)}
    </>
  );
}

/** Commands matching `query`, grouped in the palette's order, at most 12 per group. */
export function filterCommands(commands: readonly Command[], query: string): Command[] {
  const needle = query.trim().toLowerCase();
  const result: Command[] = [];
  for (const group of GROUPS) {
    let taken = 0;
    for (const command of commands) {
      if (command.group !== group || taken >= MAX_PER_GROUP) continue;
      if (needle !== "" && !`${command.title} ${command.subtitle ?? ""} ${command.keywords ?? ""}`.toLowerCase().includes(needle)) continue;
      result.push(command);
      taken++;
    }
  }
  return result;
}

export function CommandPalette({ commands, onClose }: { commands: readonly Command[]; onClose: () => void }) {
  const [query, setQuery] = useState("");
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const list = useRef<HTMLDivElement>(null);
  const results = useMemo(() => filterCommands(commands, query), [commands, query]);
  const needle = query.trim().toLowerCase();
  useEffect(() => input.current?.focus(), []);
  useEffect(() => setActive(0), [query]);
  useEffect(() => {
    list.current?.querySelector(`[data-index="${active}"]`)?.scrollIntoView({ block: "nearest" });
  }, [active]);

  const run = (command: Command | undefined) => {
    if (command === undefined) return;
    onClose();
    command.run();
  };
  useKeymap({ escape: () => onClose(), "mod+k": () => onClose() });

  return (
    <div className="modal-backdrop palette-backdrop" onMouseDown={(event) => event.target === event.currentTarget && onClose()}>
      <div className="palette" role="dialog" aria-modal="true" aria-label="Command palette">
        <input
          ref={input}
          className="palette-input"
          placeholder="Type a command, slice, session or file…"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          onKeyDown={(event) => {
            if (event.key === "ArrowDown") setActive((index) => Math.min(results.length - 1, index + 1));
            else if (event.key === "ArrowUp") setActive((index) => Math.max(0, index - 1));
            else if (event.key === "Enter") run(results[active]);
            else return;
            event.preventDefault();
          }}
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-results"
          aria-activedescendant={results[active] === undefined ? undefined : `palette-${active}`}
          data-testid="palette-input"
          aria-label="Command"
          autoFocus
        />
        {results.length === 0 ? <p className="palette-empty">No results found</p> : null}
        <div className="palette-results" id="palette-results" role="listbox" aria-label="Commands" ref={list}>
          {GROUPS.map((group) => {
            const members = results.map((command, index) => ({ command, index })).filter((entry) => entry.command.group === group);
            if (members.length === 0) return null;
            return (
              <div key={group} role="group" aria-labelledby={`palette-group-${group}`}>
                <div className="palette-group" id={`palette-group-${group}`} role="presentation">
                  {group}
                </div>
                {members.map(({ command, index }) => (
                  <div
                    key={command.id}
                    id={`palette-${index}`}
                    role="option"
                    aria-selected={index === active}
                    data-index={index}
                    className={`palette-item${index === active ? " is-active" : ""}`}
                    onMouseMove={() => setActive(index)}
                    onClick={() => run(command)}
                  >
                    <span className="palette-title">
                      <Highlighted text={command.title} needle={needle} />
                    </span>
                    {command.subtitle !== undefined ? (
                      <span className="palette-subtitle">
                        <Highlighted text={command.subtitle} needle={needle} />
                      </span>
                    ) : null}
                    {command.shortcut !== undefined ? <kbd className="kbd">{command.shortcut}</kbd> : null}
                  </div>
                ))}
              </div>
            );
          })}
        </div>
      </div>
    </div>
  );
}
