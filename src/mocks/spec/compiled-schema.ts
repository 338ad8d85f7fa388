// The mock spec's JSON Schema, its $refs inlined, compiled by Ajv on first use and kept compiled in the
// project's cache, so that a file's first spec does not pay for Ajv's compiler.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import type { Ajv2020 as Ajv } from 'ajv/dist/2020.js'

// Loaded on the first validation, not with the harness: most sessions have no spec, and Ajv with the
// compiled schema costs more to load than the rest of the harness. require() also reads JSON on every
// Node 20.x (JSON import attributes need 20.10).
const require = createRequire(import.meta.url)
let inlinedSchema: ReturnType<typeof inlineRefs> | undefined
export const inlined = () => (inlinedSchema ??= inlineRefs(require('./schema.json') as JsonSchema))

// Compiled on first use: it costs more than a test session, and most test files never load a spec.
// strict: false because the schema carries annotation keywords (default, description) on purpose.
let compiled: ValidateFunction | undefined
export const validator = () => (compiled ??= loadCompiled() ?? compileSchema())

type ValidateFunction = ReturnType<Ajv['compile']>
const AJV_OPTIONS = { allErrors: true, strict: false, verbose: true } as const

// Loading Ajv and compiling the schema cost 0.4-1 s, which each test file's worker paid at its first mock
// spec: the compiled code is kept in the project's node_modules/.cache, keyed by the schema and Ajv's version.
function cachedValidatorFile(): string | undefined {
  const cacheRoot = join(process.cwd(), 'node_modules', '.cache')
  if (!existsSync(join(process.cwd(), 'node_modules'))) return undefined
  const ajvVersion = (require('ajv/package.json') as { version: string }).version
  const key = createHash('sha256').update(JSON.stringify([inlined().schema, ajvVersion, AJV_OPTIONS])).digest('hex').slice(0, 16)
  return join(cacheRoot, 'vitest-environment-pi', `mock-spec-validator-${key}.cjs`)
}

function loadCompiled(): ValidateFunction | undefined {
  const file = cachedValidatorFile()
  if (file === undefined || !existsSync(file)) return undefined
  try {
    const module = { exports: {} as { default?: ValidateFunction } }
    // The code requires Ajv's runtime helpers, resolved from here as Ajv itself is.
    new Function('require', 'module', 'exports', readFileSync(file, 'utf8'))(require, module, module.exports)
    return module.exports.default
  } catch {
    return undefined
  }
}

function compileSchema(): ValidateFunction {
  const { Ajv2020 } = require('ajv/dist/2020.js') as typeof import('ajv/dist/2020.js')
  const ajv = new Ajv2020({ ...AJV_OPTIONS, code: { source: true } })
  const validate = ajv.compile(inlined().schema)
  const file = cachedValidatorFile()
  if (file !== undefined) {
    try {
      const standaloneCode = (require('ajv/dist/standalone/index.js') as typeof import('ajv/dist/standalone/index.js')).default
      mkdirSync(dirname(file), { recursive: true })
      // Written aside and renamed: a worker reading it never sees half a file.
      const partial = `${file}.${process.pid}.tmp`
      writeFileSync(partial, standaloneCode(ajv, validate))
      renameSync(partial, file)
    } catch {
      // A cache that cannot be written only costs the next process the compile.
    }
  }
  return validate
}

export type JsonSchema = { [keyword: string]: unknown }

// Which definition an inlined schema object is, kept in the schema (an annotation Ajv ignores), so that it
// survives in the compiled code the cache holds, where the objects are others.
const DEF = 'x-vitest-pi-def'
export const defName = (schema: unknown) => (isObject(schema) ? schema[DEF] : undefined)
const withoutDefName = ({ [DEF]: _name, ...rest }: JsonSchema) => rest

/**
 * The schema with every `$ref` replaced by its definition, and each definition inlined once, so an error's
 * parentSchema is the definition object itself. Ajv calls a referenced schema as a function and joins its
 * errors to the caller's with `concat`, which made N failing rules cost O(N²); inlined, each error is one push.
 */
function inlineRefs(root: JsonSchema): { schema: JsonSchema; defs: Record<string, JsonSchema> } {
  const definitions = (root.$defs ?? {}) as Record<string, JsonSchema>
  const defs: Record<string, JsonSchema> = {}
  const definition = (ref: string): JsonSchema => {
    const name = ref.replace(/^#\/\$defs\//, '')
    if (!(name in definitions)) throw new Error(`schema.json: unknown $ref ${ref}`)
    return (defs[name] ??= { ...(inline(definitions[name]) as JsonSchema), [DEF]: name })
  }
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline)
    if (!isObject(node)) return node
    const { $ref, $defs: _defs, ...rest } = node
    // Beside a $ref the schema only annotates (description), so merging keeps the meaning.
    if (typeof $ref === 'string') return Object.keys(rest).length === 0 ? definition($ref) : { ...withoutDefName(definition($ref)), ...rest }
    return Object.fromEntries(Object.entries(rest).map(([key, child]) => [key, inline(child)]))
  }
  return { schema: inline(root) as JsonSchema, defs }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
