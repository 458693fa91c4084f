/**
 * One file's diff with @codemirror/merge: side by side or unified, unchanged stretches
 * collapsed (click to expand), syntax highlighting, only the viewport rendered. The chunks
 * come from the server's hunks (see hunk-changes.ts); `N`/`Shift+N` step through them. An
 * added or deleted file is one column side by side (the side it has): beside it an empty
 * pane took half the width.
 */
import { Change, MergeView, diff, goToNextChunk, goToPreviousChunk, unifiedMergeView } from "@codemirror/merge";
import { EditorState } from "@codemirror/state";
import type { Extension } from "@codemirror/state";
import { EditorView, highlightActiveLine, highlightActiveLineGutter, lineNumbers } from "@codemirror/view";
import { useEffect, useImperativeHandle, useRef } from "react";
import type { Ref } from "react";
import type { HunkResponse } from "../api/api.js";
import { hunksToChanges } from "./hunk-changes.js";
import { loadLanguage } from "./languages.js";
import { appEditorTheme } from "./theme.js";

export interface MergeDiffHandle {
  next(): void;
  previous(): void;
}

/** What every drawing of a diff's hunks takes (this editor, and the virtualised `HunkList`). */
export interface HunksViewProps {
  readonly hunks: readonly HunkResponse[];
  readonly layout: "split" | "unified";
  readonly handle?: Ref<MergeDiffHandle>;
  /** A line to reveal (1-based) and mark (a permalink), in the target unless `side` is `base`. */
  readonly line?: number | undefined;
  readonly side?: "base" | undefined;
  /** Clicking a line number: its line and side (a permalink). */
  readonly onLineClick?: (line: number, side: "base" | "target") => void;
}

export interface MergeDiffProps extends HunksViewProps {
  readonly path: string;
  readonly base: string;
  readonly target: string;
  /** The file exists on this side only (added: `target`, deleted: `base`): drawn alone, every line marked. */
  readonly only?: "base" | "target" | undefined;
}

const COLLAPSE = { margin: 3, minSize: 6 };

export function MergeDiff({ path, base, target, hunks, layout, handle, line, side, onLineClick, only }: MergeDiffProps) {
  const host = useRef<HTMLDivElement>(null);
  const navigable = useRef<EditorView | null>(null);
  const sides = useRef<{ a: EditorView | null; b: EditorView | null }>({ a: null, b: null });
  const clickHandler = useRef(onLineClick);
  clickHandler.current = onLineClick;
  const reveal = useRef({ line, side });
  reveal.current = { line, side };

  useImperativeHandle(handle, () => ({
    next: () => {
      if (navigable.current !== null) goToNextChunk(navigable.current);
    },
    previous: () => {
      if (navigable.current !== null) goToPreviousChunk(navigable.current);
    },
  }));

  useEffect(() => {
    const parent = host.current;
    if (parent === null) return;
    let cancelled = false;
    let destroy = () => undefined as void;
    const changes = hunksToChanges(hunks, base, target, (a, b) => diff(a, b, { scanLimit: 2000, timeout: 50 }));
    const override = () => changes.map((change) => new Change(change.fromA, change.toA, change.fromB, change.toB));
    const diffConfig = { override, scanLimit: 100_000, timeout: 2000 };
    void loadLanguage(path).then((language: Extension) => {
      if (cancelled) return;
      const numbers = (which: "base" | "target") =>
        lineNumbers({
          domEventHandlers: {
            click: (view, block) => {
              clickHandler.current?.(view.state.doc.lineAt(block.from).number, which);
              return false;
            },
          },
        });
      const common = [EditorState.readOnly.of(true), EditorView.editable.of(false), highlightActiveLine(), highlightActiveLineGutter(), appEditorTheme, language];
      if (layout === "split" && only !== undefined) {
        const view = new EditorView({
          parent,
          state: EditorState.create({
            doc: only === "base" ? base : target,
            extensions: [...common, numbers(only), EditorView.editorAttributes.of({ class: only === "base" ? "cm-whole-deleted" : "cm-whole-added" }), EditorView.contentAttributes.of({ "aria-label": `${path} in the ${only} (${only === "base" ? "deleted" : "added"})` })],
          }),
        });
        navigable.current = null;
        sides.current = only === "base" ? { a: view, b: null } : { a: null, b: view };
        focusableScroller(view, `${path}, ${only === "base" ? "deleted" : "added"}`);
        revealLine(view, reveal.current.line);
        destroy = () => view.destroy();
      } else if (layout === "split") {
        const merge = new MergeView({
          a: { doc: base, extensions: [...common, numbers("base"), EditorView.contentAttributes.of({ "aria-label": `${path} in the base` })] },
          b: { doc: target, extensions: [...common, numbers("target"), EditorView.contentAttributes.of({ "aria-label": `${path} in the target` })] },
          parent,
          collapseUnchanged: COLLAPSE,
          highlightChanges: true,
          gutter: true,
          diffConfig,
        });
        navigable.current = merge.b;
        sides.current = { a: merge.a, b: merge.b };
        focusableScroller(merge.a, `${path} in the base`);
        focusableScroller(merge.b, `${path} in the target`);
        merge.dom.tabIndex = 0;
        merge.dom.setAttribute("role", "region");
        merge.dom.setAttribute("aria-label", `Diff of ${path}`);
        revealLine(reveal.current.side === "base" ? merge.a : merge.b, reveal.current.line);
        destroy = () => merge.destroy();
      } else {
        const view = new EditorView({
          parent,
          state: EditorState.create({
            doc: target,
            extensions: [...common, numbers("target"), unifiedMergeView({ original: base, mergeControls: false, highlightChanges: true, gutter: true, collapseUnchanged: COLLAPSE, diffConfig })],
          }),
        });
        navigable.current = view;
        sides.current = { a: null, b: view };
        focusableScroller(view, path);
        revealLine(view, reveal.current.line);
        destroy = () => view.destroy();
      }
    });
    return () => {
      cancelled = true;
      destroy();
      navigable.current = null;
      sides.current = { a: null, b: null };
    };
  }, [path, base, target, hunks, layout, only]);

  useEffect(() => {
    revealLine(side === "base" ? sides.current.a : sides.current.b, line);
  }, [line, side]);

  const single = layout === "split" ? only : undefined;
  return <div className={`merge-diff layout-${layout}${single === undefined ? "" : " is-single"}`} ref={host} data-testid="merge-diff" data-single-side={single} />;
}

/** Selects and centres a line (the target of a permalink). */
function revealLine(view: EditorView | null, line: number | undefined): void {
  if (view === null || line === undefined) return;
  const target = Math.min(Math.max(1, line), view.state.doc.lines);
  const position = view.state.doc.line(target).from;
  view.dispatch({ selection: { anchor: position }, effects: EditorView.scrollIntoView(position, { y: "center" }) });
}

/** The scroller is what a keyboard user scrolls: it takes focus and says what it holds. */
function focusableScroller(view: EditorView, label: string): void {
  view.scrollDOM.tabIndex = 0;
  view.scrollDOM.setAttribute("aria-label", label);
}
