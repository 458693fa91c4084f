/** What the help overlay lists: exactly the keys the app handles (each one is wired in a keymap). */
export interface ShortcutGroup {
  readonly title: string;
  readonly keys: readonly (readonly [keys: string, action: string])[];
}

export const SHORTCUTS: readonly ShortcutGroup[] = [
  {
    title: "Anywhere",
    keys: [
      ["⌘K / Ctrl+K", "Command palette"],
      ["1 – 6", "Run, Timeline, Slices, Files, Compare, Search"],
      ["7 – 9 / 0", "A debug bundle's first three panels (Logs, Transcript, Request) / its next panel"],
      ["N / Shift+N", "Next / previous failure of the run (in its timeline, or a bundle's transcript)"],
      ["← / →", "Previous / next snapshot (session list order)"],
      ["H / L", "Previous / next slice"],
      ["R", "Reload data"],
      ["D", "Toggle dark mode"],
      ["[", "Toggle sidebar"],
      ["?", "This help"],
      ["Esc", "Close overlay, or clear and leave a search box"],
    ],
  },
  {
    title: "Timeline",
    keys: [
      ["J / K", "Next / previous event"],
      ["G G / Shift+G", "First / last event"],
      ["O", "Fold / unfold the selected event's turn"],
      ["Enter", "Open the event's item in its slice"],
      ["C", "Diff of the files the selected tool call changed"],
      ["/", "Filter events"],
    ],
  },
  {
    title: "Tool-call diff",
    keys: [
      ["J / K", "Next / previous file of the call"],
      [". / ,", "Next / previous change in the diff"],
      ["U", "Side by side ⇄ unified"],
      ["Esc", "Back to the timeline"],
    ],
  },
  {
    title: "Slices",
    keys: [
      ["J / K", "Next / previous item"],
      ["/", "Search items"],
      ["G G / Shift+G", "First / last item"],
      ["O", "Filter objects (by key)"],
      ["E", "Copy JSON of the matching items"],
    ],
  },
  {
    title: "Files",
    keys: [
      ["J / K", "Next / previous file"],
      ["/", "Filter files"],
      ["↑ ↓ ← → Enter", "Move, close, open in the focused tree"],
      ["⌘F / Ctrl+F", "Find in the open file (editor focused)"],
    ],
  },
  {
    title: "Bundle logs",
    keys: [
      ["J / K or ↓ / ↑", "Next / previous record (opens it)"],
      ["G G / Shift+G", "First / last record"],
      ["E / Shift+E", "Next / previous ERROR record"],
      ["T", "Jump to a time (05:45:35, +12s, ISO)"],
      ["/", "Search messages and context"],
    ],
  },
  {
    title: "Bundle transcript",
    keys: [
      ["J / K", "Next / previous entry"],
      ["G G / Shift+G", "First / last entry"],
      ["/", "Search the transcript"],
    ],
  },
  {
    title: "Compare",
    keys: [
      ["J / K", "Next / previous changed file or slice"],
      [". / ,", "Next / previous change in the diff"],
      ["U", "Side by side ⇄ unified"],
      ["V", "Mark the file viewed"],
      ["X", "Swap base and target"],
      ["Shift+← / Shift+→", "Previous / next pair: base and target one snapshot back / on in the session"],
    ],
  },
];
