// Scenario (d): an npm project whose `test` script prints `megabytes` MB to stdout, and the bare floor
// for consuming it (spawn npm the same way and drain both pipes).
import { spawn } from 'node:child_process'
import { mkdirSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const printer = (bytes) => `// Writes ${bytes} bytes of numbered lines to stdout, honouring back-pressure.
const total = ${bytes}
let written = 0
let line = 0
function chunk() {
  const lines = []
  for (let i = 0; i < 640; i++) lines.push(\`line \${String(++line).padStart(9, '0')} \${'x'.repeat(86)}\\n\`)
  return Buffer.from(lines.join(''))
}
function write() {
  while (written < total) {
    let buffer = chunk()
    if (buffer.length > total - written) buffer = buffer.subarray(0, total - written)
    written += buffer.length
    if (!process.stdout.write(buffer)) {
      process.stdout.once('drain', write)
      return
    }
  }
}
write()
`

export function writeFixture(dir, megabytes) {
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'bench-loud-tests', private: true, scripts: { test: 'node print.js' } }, null, 2))
  writeFileSync(join(dir, 'print.js'), printer(megabytes * 1024 * 1024))
  return dir
}

/** The npm the runner would use: the one that launched us when known, else `npm` from PATH. */
export function npmCommand() {
  const cli = process.env.npm_execpath
  if (cli && /\.c?js$/.test(cli) && statSync(cli, { throwIfNoEntry: false })?.isFile()) return [process.execPath, cli]
  return ['npm']
}

/** Spawns `npm run test` in `cwd` and counts its output, keeping none of it. */
export function drainScript(cwd) {
  const [command, ...prefix] = npmCommand()
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...prefix, 'run', 'test'], { cwd, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    let bytes = 0
    child.stdout.on('data', (chunk) => (bytes += chunk.length))
    child.stderr.on('data', (chunk) => (bytes += chunk.length))
    child.once('error', reject)
    child.once('close', (exitCode) => resolve({ exitCode, outputBytes: bytes }))
  })
}
