/**
 * A read-only CodeMirror 6 view of a text file: line numbers, syntax highlighting (loaded
 * for the file's language), search (Ctrl/⌘+F), the target line revealed; clicking a line
 * number puts that line in the URL. It renders only the viewport, so size hardly matters.
 */
import { highlightSelectionMatches, search, searchKeymap } from "@codemirror/search";
import { Compartment, EditorState } from "@codemirror/state";
import { EditorView, drawSelection, highlightActiveLine, highlightActiveLineGutter, keymap, lineNumbers } from "@codemirror/view";
import { useEffect, useRef } from "react";
import { loadLanguage } from "./languages.js";
import { appEditorTheme } from "./theme.js";

export interface CodeViewProps {
  readonly path: string;
  readonly text: string;
  /** 1-based line to reveal. */
  readonly line?: number | undefined;
  readonly onLineClick?: (line: number) => void;
}

export function CodeView({ path, text, line, onLineClick }: CodeViewProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const clickHandler = useRef(onLineClick);
  clickHandler.current = onLineClick;

  useEffect(() => {
    if (host.current === null) return;
    const language = new Compartment();
    const editor = new EditorView({
      parent: host.current,
      state: EditorState.create({
        doc: text,
        extensions: [
          EditorState.readOnly.of(true),
          lineNumbers({
            domEventHandlers: {
              click: (target, block) => {
                clickHandler.current?.(target.state.doc.lineAt(block.from).number);
                return false;
              },
            },
          }),
          highlightActiveLineGutter(),
          highlightActiveLine(),
          drawSelection(),
          search({ top: true }),
          highlightSelectionMatches(),
          keymap.of(searchKeymap),
          EditorView.contentAttributes.of({ "aria-label": `Contents of ${path}`, "data-testid": "code-content" }),
          appEditorTheme,
          language.of([]),
        ],
      }),
    });
    view.current = editor;
    // The scroller is what a keyboard user scrolls: it takes focus and says what it holds.
    editor.scrollDOM.tabIndex = 0;
    editor.scrollDOM.setAttribute("aria-label", `Contents of ${path}`);
    let cancelled = false;
    void loadLanguage(path).then((extension) => {
      if (!cancelled) editor.dispatch({ effects: language.reconfigure(extension) });
    });
    return () => {
      cancelled = true;
      editor.destroy();
      view.current = null;
    };
  }, [path, text]);

  useEffect(() => {
    const editor = view.current;
    if (editor === null || line === undefined) return;
    const target = Math.min(Math.max(1, line), editor.state.doc.lines);
    const position = editor.state.doc.line(target).from;
    editor.dispatch({ selection: { anchor: position }, effects: EditorView.scrollIntoView(position, { y: "center" }) });
  }, [line, path, text]);

  return <div className="code-view" ref={host} data-testid="code-view" />;
}
