/**
 * One file's diff with @codemirror/merge: side by side or unified, unchanged stretches
 * collapsed (click to expand), syntax highlighting, only the viewport rendered. The chunks
 * come from the server's hunks (see hunk-changes.ts); `N`/`Shift+N` step through them.
 */
import { Change, MergeView, diff, goToNextChunk, goToPreviousChunk, unifiedMergeView } from "@codemirror/merge";
import { EditorState } from "@codemirror/state";
import type { Extension } from "@codemirror/state";
import { EditorView, lineNumbers } from "@codemirror/view";
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

export interface MergeDiffProps {
  readonly path: string;
  readonly base: string;
  readonly target: string;
  readonly hunks: readonly HunkResponse[];
  readonly layout: "split" | "unified";
  readonly handle?: Ref<MergeDiffHandle>;
}

const COLLAPSE = { margin: 3, minSize: 6 };

export function MergeDiff({ path, base, target, hunks, layout, handle }: MergeDiffProps) {
  const host = useRef<HTMLDivElement>(null);
  const navigable = useRef<EditorView | null>(null);

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
      const common = [EditorState.readOnly.of(true), EditorView.editable.of(false), lineNumbers(), appEditorTheme, language];
      if (layout === "split") {
        const merge = new MergeView({
          a: { doc: base, extensions: common },
          b: { doc: target, extensions: common },
          parent,
          collapseUnchanged: COLLAPSE,
          highlightChanges: true,
          gutter: true,
          diffConfig,
        });
        navigable.current = merge.b;
        destroy = () => merge.destroy();
      } else {
        const view = new EditorView({
          parent,
          state: EditorState.create({
            doc: target,
            extensions: [...common, unifiedMergeView({ original: base, mergeControls: false, highlightChanges: true, gutter: true, collapseUnchanged: COLLAPSE, diffConfig })],
          }),
        });
        navigable.current = view;
        destroy = () => view.destroy();
      }
    });
    return () => {
      cancelled = true;
      destroy();
      navigable.current = null;
    };
  }, [path, base, target, hunks, layout]);

  return <div className={`merge-diff layout-${layout}`} ref={host} data-testid="merge-diff" />;
}
