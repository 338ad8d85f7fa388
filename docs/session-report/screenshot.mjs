// Takes the README's pictures of a session attached to its test: the test in Vitest's HTML report, with
// its sessions listed, and the attached page, Pi's own HTML export. Not part of `npm test`:
//   npm run build && node docs/session-report/screenshot.mjs
// Needs Chromium (`apt-get install -y chromium`, or CHROMIUM=/path/to/chrome). Runs the examples'
// session-report suite with vitest.config.ts beside this file, serves the report on 127.0.0.1 and
// writes report.png and pi-export.png here; everything else goes to a temp dir, removed at the end.
import { execFile, execFileSync } from 'node:child_process'
import { promisify } from 'node:util'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, extname, join, normalize, resolve } from 'node:path'
import { gunzipSync } from 'node:zlib'

const here = import.meta.dirname
const root = resolve(here, '../..')
const chromium = process.env.CHROMIUM ?? '/usr/bin/chromium'
if (!existsSync(chromium)) throw new Error(`No Chromium at ${chromium}: apt-get install -y chromium, or set CHROMIUM`)
const TEST = 'blocks a push the user declines'

const out = mkdtempSync(join(tmpdir(), 'session-report-shot-'))
// Headless Chromium shoots at the page's load event; the report renders after it has read its data. An
// image the server answers a little later holds the load event until then.
const RENDER_MS = 6000
const WAIT = '/__render-wait.svg'
const server = createServer((request, response) => {
  const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname))
  if (path === WAIT) return void setTimeout(() => response.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg xmlns="http://www.w3.org/2000/svg"/>'), RENDER_MS)
  const file = join(out, 'html', path.endsWith('/') ? join(path, 'index.html') : path)
  if (!file.startsWith(join(out, 'html')) || !existsSync(file)) return void response.writeHead(404).end()
  const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png' }
  let body = readFileSync(file)
  if (extname(file) === '.html') body = body.toString().replace('</body>', `<img src="${WAIT}" alt="" style="display:none"></body>`)
  response.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' }).end(body)
})
try {
  execFileSync(process.execPath, [join(root, 'node_modules/vitest/vitest.mjs'), 'run', '--config', join(here, 'vitest.config.ts')], {
    cwd: root,
    env: { ...process.env, SHOT_OUT: out },
    stdio: 'inherit',
  })
  const { fileId, testId, page } = findTest(join(out, 'html/html.meta.json.gz'), TEST)
  await new Promise((done) => server.listen(0, '127.0.0.1', done))
  const origin = `http://127.0.0.1:${server.address().port}`
  await screenshot(`${origin}/#?file=${encodeURIComponent(fileId)}&test=${encodeURIComponent(testId)}`, join(here, 'report.png'), '1100,620')
  await screenshot(`${origin}/data/${basename(page)}`, join(here, 'pi-export.png'), '1100,1500')
} finally {
  server.close()
  rmSync(out, { recursive: true, force: true })
}

/** The report's ids of the file and the test named `name`, and the file name of its attached HTML export. */
function findTest(metaFile, name) {
  const { parse } = createRequire(join(root, 'node_modules/@vitest/ui/package.json'))('flatted')
  const meta = parse(gunzipSync(readFileSync(metaFile)).toString())
  const tests = (task) => (task.tasks ? task.tasks.flatMap(tests) : [task])
  for (const file of meta.files) {
    const test = tests(file).find((t) => t.name === name)
    const page = test?.annotations.find((a) => a.attachment?.contentType === 'text/html')?.attachment.path
    if (page) return { fileId: file.id, testId: test.id, page }
  }
  throw new Error(`The report has no test "${name}" with an attached HTML export`)
}

// Asynchronous: the server that answers Chromium runs in this process.
async function screenshot(url, file, size) {
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'))
  try {
    await promisify(execFile)(chromium, [
      '--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
      '--no-first-run', `--user-data-dir=${profile}`, '--hide-scrollbars',
      `--window-size=${size}`, `--screenshot=${file}`, url,
    ], { timeout: 60_000 })
  } finally {
    rmSync(profile, { recursive: true, force: true })
  }
  console.log(`wrote ${file}`)
}
