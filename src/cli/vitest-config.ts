// Adds pi() to the project's Vitest config: creates the file, or edits one simple enough to edit without
// a parser (one `defineConfig({ ... })`); any other config is left as it is, with what to add printed.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { editFile, writeFile, type Change } from './files.js'

const PLUGIN_IMPORT = "import { pi } from 'vitest-environment-pi/plugin'"
const CONFIG_NAMES = ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'].flatMap((ext) => [`vitest.config.${ext}`]).concat(['ts', 'mts', 'js', 'mjs'].map((ext) => `vite.config.${ext}`))

/** The config file Vitest would read, if the project has one. */
export function findVitestConfig(dir: string): string | undefined {
  return CONFIG_NAMES.map((name) => join(dir, name)).find((file) => existsSync(file))
}

/** The config a new project gets: the plugin and nothing else. */
export function newVitestConfig(): string {
  return ["import { defineConfig } from 'vitest/config'", PLUGIN_IMPORT, '', 'export default defineConfig({ plugins: [pi()] })', ''].join('\n')
}

/** What to add by hand to a config init cannot edit safely. */
export const MANUAL_CONFIG_STEP = `add \`${PLUGIN_IMPORT}\` and \`plugins: [pi()]\` to its defineConfig({ ... })`

/**
 * The config with pi() added, `{ text }` unchanged when it already has the plugin, or `{ problem }` saying
 * why it is not edited. Only the forms a person writes by hand are edited: one `defineConfig({`, and at most
 * one `plugins: [`.
 */
export function addPluginToConfig(text: string): { text: string } | { problem: string } {
  if (text.includes('vitest-environment-pi/plugin')) return { text }
  if (/\bmodule\.exports\b|\brequire\(/.test(text)) return { problem: 'it is CommonJS, and the plugin is an ES module' }
  const defines = [...text.matchAll(/\bdefineConfig\(\s*\{/g)]
  if (defines.length !== 1) return { problem: defines.length === 0 ? 'it has no defineConfig({ ... })' : 'it has several defineConfig({ ... })' }
  const plugins = [...text.matchAll(/\bplugins\s*:\s*\[/g)]
  if (plugins.length > 1 || (plugins.length === 0 && /\bplugins\b/.test(text))) return { problem: 'its plugins are not one plain array' }
  const quote = /from\s+"/.test(text) && !/from\s+'/.test(text) ? '"' : "'"
  const semi = /^import .*;\s*$/m.test(text) ? ';' : ''
  const importLine = PLUGIN_IMPORT.replaceAll("'", quote) + semi
  let edited: string
  if (plugins.length === 1) {
    const at = plugins[0]!.index! + plugins[0]![0].length
    edited = text.slice(0, at) + (/^\s*\]/.test(text.slice(at)) ? 'pi()' : 'pi(), ') + text.slice(at)
  } else {
    const define = defines[0]!
    const at = define.index! + define[0].length
    const rest = text.slice(at)
    const indent = /^\n([ \t]+)\S/.exec(rest)?.[1]
    edited = /^\s*\}/.test(rest)
      ? text.slice(0, at) + ' plugins: [pi()] ' + rest.replace(/^\s*/, '')
      : indent !== undefined
        ? `${text.slice(0, at)}\n${indent}plugins: [pi()],${rest}`
        : `${text.slice(0, at)} plugins: [pi()],${rest.startsWith(' ') ? '' : ' '}${rest}`
  }
  // The import goes after the file's last import line, or first when it has none.
  const imports = [...edited.matchAll(/^import\b[^\n]*$/gm)]
  const last = imports.at(-1)
  if (!last) return { text: `${importLine}\n${edited}` }
  // An import over several lines ends at its `from '...'`.
  const from = /from\s*['"][^'"\n]+['"];?|^import\s*['"][^'"\n]+['"];?/m.exec(edited.slice(last.index!))
  if (!from) return { problem: 'its imports are not plain import lines' }
  const end = last.index! + from.index + from[0].length
  return { text: `${edited.slice(0, end)}\n${importLine}${edited.slice(end)}` }
}

/** Creates or edits the config; the name of a created one follows the package's module kind and language. */
export function setUpVitestConfig(dir: string, { esm, typescript, force }: { esm: boolean; typescript: boolean; force: boolean }): Change {
  const existing = findVitestConfig(dir)
  if (!existing) {
    const ext = typescript ? (esm ? 'ts' : 'mts') : esm ? 'js' : 'mjs'
    return writeFile(dir, join(dir, `vitest.config.${ext}`), newVitestConfig(), force)
  }
  const before = readFileSync(existing, 'utf8')
  const edited = addPluginToConfig(before)
  if ('problem' in edited) return { file: existing.slice(dir.length + 1), outcome: 'kept', note: `not edited (${edited.problem}): ${MANUAL_CONFIG_STEP}` }
  return editFile(dir, existing, before, edited.text)
}
