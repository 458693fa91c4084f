import { describe, expect, it } from "vitest";
import { filterCommands } from "./CommandPalette.js";
import type { Command } from "./CommandPalette.js";

const run = () => undefined;
const commands: Command[] = [
  { id: "f1", group: "Files", title: "main.py", subtitle: "src/main.py", run },
  { id: "a1", group: "Actions", title: "Reload Data", run },
  { id: "s1", group: "Slices", title: "Plan", subtitle: "Plan · 1 items", run },
  ...Array.from({ length: 20 }, (_, i): Command => ({ id: `x${i}`, group: "Sessions", title: `session ${i}`, run })),
];

describe("palette filtering", () => {
  it("groups in order, matches title or subtitle case-insensitively, at most 12 per group", () => {
    expect(filterCommands(commands, "").map((command) => command.group).filter((group, index, all) => all.indexOf(group) === index)).toEqual(["Actions", "Slices", "Sessions", "Files"]);
    expect(filterCommands(commands, "").filter((command) => command.group === "Sessions")).toHaveLength(12);
    expect(filterCommands(commands, "SRC/").map((command) => command.id)).toEqual(["f1"]);
    expect(filterCommands(commands, "nothing")).toEqual([]);
  });
});
