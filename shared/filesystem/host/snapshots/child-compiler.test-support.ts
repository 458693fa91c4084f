/**
 * Test helper: compile a child-process entry to plain JavaScript (imported by tests only).
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";

/**
 * Compile `entry` and every module it reaches by relative import to plain JavaScript in
 * `outDir` (TypeScript's transpiler, no bundler), so a test can start it with bare `node`
 * in ~50 ms instead of ~600 ms through tsx. Returns the path of the compiled entry.
 */
export function compileForChild(entry: string, outDir: string): string {
  const sourceRoot = path.resolve(path.dirname(entry), "..", "..", "..");
  const seen = new Set<string>();
  const pending = [path.resolve(entry)];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const source = readFileSync(file, "utf8");
    const output = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false, isolatedModules: true },
      fileName: file,
    }).outputText;
    const target = path.join(outDir, path.relative(sourceRoot, file)).replace(/\.ts$/, ".js");
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, output);
    for (const match of output.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)\.js"/g)) {
      pending.push(path.resolve(path.dirname(file), `${match[1] as string}.ts`));
    }
  }
  writeFileSync(path.join(outDir, "package.json"), '{"type":"module"}\n');
  return path.join(outDir, path.relative(sourceRoot, entry)).replace(/\.ts$/, ".js");
}
