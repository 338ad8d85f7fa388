// Module hooks that let plain Node (a worker thread, a child process) import this package's TypeScript
// sources as Vitest does: a `.js` specifier from a `.ts` file resolves to the `.ts` beside it, which
// TypeScript transpiles (types only stripped, nothing checked).
import { readFile } from 'node:fs/promises'
import ts from 'typescript'

export async function resolve(specifier, context, nextResolve) {
  if (context.parentURL?.endsWith('.ts') && specifier.startsWith('.') && specifier.endsWith('.js')) {
    try {
      return await nextResolve(`${specifier.slice(0, -'.js'.length)}.ts`, context)
    } catch {
      // Not a TypeScript source after all: resolve the specifier as written.
    }
  }
  return nextResolve(specifier, context)
}

export async function load(url, context, nextLoad) {
  if (!url.endsWith('.ts')) return nextLoad(url, context)
  const { outputText } = ts.transpileModule(await readFile(new URL(url), 'utf8'), {
    fileName: url,
    compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
  })
  return { format: 'module', source: outputText, shortCircuit: true }
}
