/**
 * The workspace tree of a snapshot: virtualised (50,000 entries scroll like 50), with
 * change badges against the base snapshot, a filter, "changed only", and the keyboard of a
 * tree (↑/↓ move, ←/→ close/open, Enter opens).
 */
import { useVirtualizer } from "@tanstack/react-virtual";
import { useEffect, useMemo, useRef, useState } from "react";
import type { KeyboardEvent, Ref } from "react";
import type { BrowseResponse, FileTreeNodeResponse } from "../../api/api.js";
import { formatBytes, plural } from "../../components/format.js";
import { Icon } from "../../components/Icon.js";
import { ancestors, countFiles, initialExpanded, visibleRows } from "./tree-rows.js";

const ROW = 26;
const BADGE: Record<string, string> = { added: "A", modified: "M", deleted: "D" };

export interface FileTreeProps {
  readonly browse: BrowseResponse;
  readonly selected: string | undefined;
  readonly onOpen: (path: string) => void;
  readonly filterRef?: Ref<HTMLInputElement>;
}

export function FileTree({ browse, selected, onOpen, filterRef }: FileTreeProps) {
  const [expanded, setExpanded] = useState<Set<string>>(() => initialExpanded(browse.root, selected));
  const [filter, setFilter] = useState("");
  const [changedOnly, setChangedOnly] = useState(false);
  const [cursor, setCursor] = useState<string | undefined>(selected);
  const scroller = useRef<HTMLDivElement>(null);
  const rows = useMemo(() => visibleRows(browse.root, { expanded, filter, changedOnly }), [browse.root, expanded, filter, changedOnly]);
  const total = useMemo(() => countFiles(browse.root), [browse.root]);
  const changed = browse.root.changed_count;
  const virtualizer = useVirtualizer({ count: rows.length, getScrollElement: () => scroller.current, estimateSize: () => ROW, overscan: 12 });

  // Reveal the selected file (deep links, search results, J/K).
  useEffect(() => {
    if (selected === undefined) return;
    setCursor(selected);
    setExpanded((previous) => {
      const missing = ancestors(selected).filter((path) => !previous.has(path));
      return missing.length === 0 ? previous : new Set([...previous, ...missing]);
    });
  }, [selected]);
  const cursorIndex = rows.findIndex((row) => row.node.path === cursor);
  useEffect(() => {
    if (cursorIndex !== -1) virtualizer.scrollToIndex(cursorIndex, { align: "auto" });
  }, [cursorIndex, virtualizer]);

  const toggle = (node: FileTreeNodeResponse, open?: boolean) => {
    setExpanded((previous) => {
      const next = new Set(previous);
      if (open ?? !next.has(node.path)) next.add(node.path);
      else next.delete(node.path);
      return next;
    });
  };
  const activate = (node: FileTreeNodeResponse) => {
    setCursor(node.path);
    if (node.type === "directory") toggle(node);
    else onOpen(node.path);
  };

  const onKeyDown = (event: KeyboardEvent) => {
    const row = rows[cursorIndex];
    const move = (index: number) => {
      const target = rows[Math.min(rows.length - 1, Math.max(0, index))];
      if (target !== undefined) setCursor(target.node.path);
    };
    switch (event.key) {
      case "ArrowDown":
        move(cursorIndex + 1);
        break;
      case "ArrowUp":
        move(cursorIndex - 1);
        break;
      case "Home":
        move(0);
        break;
      case "End":
        move(rows.length - 1);
        break;
      case "ArrowRight":
        if (row?.node.type === "directory") {
          if (!row.expanded) toggle(row.node, true);
          else move(cursorIndex + 1);
        }
        break;
      case "ArrowLeft":
        if (row?.node.type === "directory" && row.expanded) toggle(row.node, false);
        else if (row !== undefined) {
          const parent = row.node.path.split("/").slice(0, -1).join("/");
          if (parent !== "") setCursor(parent);
        }
        break;
      case "Enter":
      case " ":
        if (row !== undefined) activate(row.node);
        break;
      default:
        return;
    }
    event.preventDefault();
  };

  return (
    <div className="file-tree">
      <div className="file-tree-toolbar">
        <input ref={filterRef} type="search" placeholder="Filter files…" value={filter} onChange={(event) => setFilter(event.target.value)} aria-label="Filter files" data-testid="file-filter" />
        <label className="check" title="Show only files changed since the base snapshot">
          <input type="checkbox" checked={changedOnly} onChange={(event) => setChangedOnly(event.target.checked)} disabled={browse.base === null} /> changed
        </label>
      </div>
      <div className="file-tree-summary muted small">
        {plural(total, "file")}
        {browse.base !== null ? (
          <>
            {" · "}
            <span className={changed > 0 ? "text-accent" : ""}>{changed} changed</span> since line {browse.base.line_number}
          </>
        ) : null}
      </div>
      <div
        className="file-tree-scroller"
        ref={scroller}
        role="tree"
        aria-label="Workspace files"
        tabIndex={0}
        onKeyDown={onKeyDown}
        aria-activedescendant={cursorIndex === -1 ? undefined : `tree-row-${cursorIndex}`}
        data-testid="file-tree"
      >
        {rows.length === 0 ? (
          <div className="muted small pad">{filter === "" && !changedOnly ? "No files." : "No file matches."}</div>
        ) : (
          <div style={{ height: virtualizer.getTotalSize(), position: "relative" }}>
            {virtualizer.getVirtualItems().map((virtualRow) => {
              const row = rows[virtualRow.index];
              if (row === undefined) return null;
              const { node } = row;
              const isSelected = node.path === selected;
              return (
                <div
                  key={node.path}
                  id={`tree-row-${virtualRow.index}`}
                  role="treeitem"
                  aria-level={row.depth + 1}
                  aria-expanded={node.type === "directory" ? row.expanded : undefined}
                  aria-selected={isSelected}
                  className={`tree-row${isSelected ? " is-selected" : ""}${node.path === cursor ? " is-cursor" : ""}${node.change !== null ? ` change-${node.change}` : ""}`}
                  style={{ transform: `translateY(${virtualRow.start}px)`, paddingLeft: `${0.5 + row.depth * 0.9}rem` }}
                  onClick={() => activate(node)}
                  title={node.path}
                  data-testid="tree-row"
                  data-path={node.path}
                >
                  {node.type === "directory" ? <Icon name={row.expanded ? "chevronDown" : "chevronRight"} size={12} className="tree-chevron" /> : <span className="tree-chevron" />}
                  <Icon name={node.type === "directory" ? "folder" : "file"} size={14} className="tree-icon" />
                  <span className="tree-name">{node.name}</span>
                  {node.type === "directory" && node.changed_count > 0 ? <span className="tree-count">{node.changed_count}</span> : null}
                  {node.change !== null ? (
                    <span className={`change-badge badge-${node.change}`} title={node.change}>
                      {BADGE[node.change]}
                    </span>
                  ) : null}
                  {node.type === "file" ? <span className="tree-size">{formatBytes(node.size_bytes)}</span> : null}
                </div>
              );
            })}
          </div>
        )}
      </div>
    </div>
  );
}
