// The real WINK failure messages of fixtures/, for the signature and grouping tests.

/**
 * Every failure message of the real WINK runs in fixtures/ (the same files as the team's
 * /work/shared/fixtures) and of the bundled example, as the run model reads them, with its
 * template: `server/library/run-digests.test.ts` checks that these are all of them.
 */
export const REAL_MESSAGES: readonly (readonly [source: string, tool: string, message: string, template: string])[] = [
  // wink/db5c4ea2-….jsonl (WINK's VFS tools, validation failures)
  ["db5c4ea2", "read_file", "Tool validation failed: File does not exist in the virtual filesystem.", "Tool validation failed: File does not exist in the virtual filesystem."],
  ["db5c4ea2", "planning_add_step", "Tool validation failed: Plan must be active. Current status: completed.", "Tool validation failed: Plan must be active. Current status: completed."],
  // wink-bundles/02-failed-run (failures of every kind, from the transcript)
  ["02", "read_file", "File not found: calc-service/src/calc/parsers.py", "File not found: <path>"],
  ["02", "write_file", "File 'calc-service/src/calc/parser.py' must be read before overwriting.", "File <str> must be read before overwriting."],
  ["02", "run_tests", "Validation error: target: expected str", "Validation error: target: expected str"],
  ["02", "write_file", "Error: refusing to write outside the workspace: ../../etc/hosts", "Error: refusing to write outside the workspace: <path>"],
  ["02", "delete_file", "Unknown tool: delete_file", "Unknown tool: delete_file"],
  ["02", "codex:command", "exit code 1: 1 failed, 5 passed in 0.08s", "exit code <n>: <n> failed, <n> passed in <n>s"],
  // wink-bundles/03-long-run
  ["03", "write_file", "File 'payments-service/docs/adr/0001-decision.md' must be read before overwriting.", "File <str> must be read before overwriting."],
  ["03", "read_file", "File not found: payments-service/src/payments/fx_compat.py", "File not found: <path>"],
  ["03", "read_file", "File not found: payments-service/CHANGELOG.md", "File not found: <path>"],
  // wink-bundles/05-odd-values
  ["05", "search", "Validation error: Invalid regex pattern: unterminated character set at position 0", "Validation error: Invalid regex pattern: unterminated character set at position <n>"],
  // examples/snapshots (the bundled example run)
  ["example", "read_file", "No such file or directory: src/checkout.ts. Use ls or glob to find existing paths.", "No such file or directory: <path>. Use ls or glob to find existing paths."],
  [
    "example",
    "shell",
    // Its lines, as the timeline gives the message: on one line.
    "$ npm test # tests 2 # pass 1 # fail 1 not ok 1 - subtotal multiplies price by quantity expected: 22 actual: 14 exit code 1",
    "$ npm test # tests <n> # pass <n> # fail <n> not ok <n> - subtotal multiplies price by quantity expected: <n> actual: <n> exit code <n>",
  ],
  [
    "example",
    "edit_file",
    "old_string occurs 2 times in docs/CHANGELOG.md. Include more surrounding text to make it unique, or pass replace_all: true.",
    "old_string occurs <n> times in <path>. Include more surrounding text to make it unique, or pass replace_all: true.",
  ],
];

