/**
 * A panel's search box: typed text goes to the URL's `q` after a pause (so the panel's
 * query follows it, and the search is part of the link); Esc clears it and leaves the box.
 */
import { useEffect, useState } from "react";
import type { RefObject } from "react";
import { Kbd } from "../../components/feedback.js";
import { useNavigate } from "../../state/url-store.js";

export interface SearchFieldProps {
  readonly value: string | undefined;
  readonly inputRef: RefObject<HTMLInputElement | null>;
  readonly label: string;
  readonly placeholder: string;
  readonly testId: string;
}

export function SearchField({ value, inputRef, label, placeholder, testId }: SearchFieldProps) {
  const navigate = useNavigate();
  const [text, setText] = useState(value ?? "");
  useEffect(() => setText(value ?? ""), [value]);
  useEffect(() => {
    const trimmed = text.trim();
    if (trimmed === (value ?? "")) return;
    const timer = setTimeout(() => navigate({ q: trimmed === "" ? undefined : trimmed, entry: undefined, time: undefined }, { replace: true }), 250);
    return () => clearTimeout(timer);
  }, [text, value, navigate]);
  return (
    <label className="field">
      <span className="sr-only">{label}</span>
      <input
        ref={inputRef}
        type="search"
        placeholder={placeholder}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onKeyDown={(event) => {
          if (event.key === "Escape" && text !== "") {
            event.stopPropagation();
            setText("");
          }
        }}
        data-testid={testId}
      />
      <Kbd>/</Kbd>
    </label>
  );
}
