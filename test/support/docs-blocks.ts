// The fenced code blocks of README.md and docs/*.md, and what a page says (in an HTML comment a reader does
// not see) about the world a block runs in. `test/docs-examples.test.ts` type-checks the ```ts blocks;
// `test/docs-run.test.ts` runs them.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import * as api from '../../environment/index.js'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * What a block may use without importing it, as in a test file of these pages, by module: Vitest's test API,
 * every value the package exports, Node's `readFileSync`/`writeFileSync`/`existsSync` and `join`/`resolve`, and
 * Pi's `SessionManager`. A block's own imports and declarations shadow these. (A session `t`, a temp `dir` and
 * `pi`, an extension factory's `ExtensionAPI`, come with them: test/docs-examples.test.ts declares them, and
 * test/docs-run.test.ts makes them where a block uses them.)
 */
export const IN_SCOPE: Record<string, string[]> = {
  vitest: ['expect', 'it', 'describe', 'vi', 'inject', 'beforeAll', 'afterAll', 'beforeEach', 'afterEach'],
  'vitest-environment-pi': Object.keys(api).filter((name) => name !== 'default' && name !== 'test'),
  'node:fs': ['readFileSync', 'writeFileSync', 'existsSync'],
  'node:path': ['join', 'resolve'],
  '@earendil-works/pi-coding-agent': ['SessionManager'],
}

export const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`)]

/**
 * The world of a block, from the `<!-- example … -->` comment right above it:
 * - `file <name>: <source>` puts a file beside the test (a repo path, or `pi:<path>` in the running Pi's package);
 * - `options: {…}` is the test file's `@vitest-environment-options` (besides `root`, the block's folder);
 * - any other line is code run before the block, unseen by the reader (it makes `t`, for instance).
 */
export interface Example {
  files: Record<string, string>
  options: Record<string, unknown>
  before: string
}

/** A fenced code block: its language line (`ts`, `ts fragment`), its text, and the page line of its first line of code. */
export interface Block {
  page: string
  info: string
  line: number
  text: string
  example?: Example
}

export const nameOf = (block: Pick<Block, 'page' | 'line'>) => `${block.page}:${block.line - 1}`

function exampleOf(comment: string[], where: string): Example {
  const example: Example = { files: {}, options: {}, before: '' }
  for (const line of comment) {
    const file = /^file (\S+): (\S+)$/.exec(line)
    if (file) example.files[file[1]!] = file[2]!
    else if (line.startsWith('options: ')) {
      try {
        example.options = JSON.parse(line.slice('options: '.length)) as Record<string, unknown>
      } catch (error) {
        throw new Error(`${where}: the example's options are not JSON: ${(error as Error).message}`)
      }
    } else example.before += `${line}\n`
  }
  return example
}

export function blocksOf(page: string): Block[] {
  const lines = readFileSync(join(ROOT, page), 'utf8').split('\n')
  const blocks: Block[] = []
  let open: Block | undefined
  let comment: string[] | undefined
  let example: { example: Example; endsAt: number } | undefined
  for (const [index, line] of lines.entries()) {
    if (comment) {
      if (line.trim() === '-->') {
        example = { example: exampleOf(comment, `${page}:${index + 1}`), endsAt: index }
        comment = undefined
      } else comment.push(line)
      continue
    }
    if (!open && line.trim() === '<!-- example') {
      comment = []
      continue
    }
    if (!line.startsWith('```')) {
      if (open) open.text += `${line}\n`
      continue
    }
    if (open) {
      blocks.push(open)
      open = undefined
    } else {
      open = { page, info: line.slice(3).trim(), line: index + 2, text: '' }
      // The comment belongs to the block right below it, and to no other.
      if (example?.endsAt === index - 1) open.example = example.example
      example = undefined
    }
  }
  if (comment) throw new Error(`${page}: an <!-- example comment that is never closed`)
  if (open) throw new Error(`${page}:${open.line - 1}: a code block that is never closed`)
  return blocks
}
