// `vitest-environment-pi codegen <session.jsonl>`: a recorded Pi session becomes a test a person can read
// and edit. The session is read as replay() reads it, redacted, rehearsed once against the extension (to
// learn the dialogs' answers), and written as when/calls/says with mocks, checks and matchers.
import { existsSync } from 'node:fs'
import { basename, dirname, extname, join, relative, resolve } from 'node:path'
import { CliError, EXIT } from './errors.js'
import { describeChange, writeFile, type Change } from './files.js'
import { findExtensions, runningPi } from './probe.js'
import { readProject } from './project.js'
import { readRecording } from './recording.js'
import { Redactor } from './redact.js'
import { rehearse } from './rehearse.js'
import { renderTest } from './render-test.js'

export interface CodegenOptions {
  readonly dir: string
  readonly session: string
  readonly extension?: string | undefined
  readonly out?: string | undefined
  readonly flags: Record<string, string | boolean>
  readonly force: boolean
  readonly log: (line: string) => void
}

export async function codegen({ dir, session, extension, out, flags, force, log }: CodegenOptions): Promise<number> {
  if (!existsSync(session)) throw new CliError(`${session}: no such session file`, EXIT.usage)
  const project = readProject(dir)
  const recording = readRecording(session)
  if (extension && !existsSync(resolve(extension))) throw new CliError(`--extension ${extension}: no such file`, EXIT.usage)
  const ext = extension ? relativeToRoot(dir, resolve(extension)) : await theExtension(dir)
  const redactor = new Redactor()
  const redacted = redactor.value(recording)
  log(`Replaying ${relative(dir, session)} (${recording.turns.length} turn(s)) against ${ext} on ${runningPi()} to learn what the session does not hold...`)
  const rehearsal = await rehearse(dir, redacted, { extensions: [ext], flags })

  const testFile = resolve(out ?? join(dir, 'test', `${basename(session, extname(session))}.test.${project.typescript ? (project.esm ? 'ts' : 'mts') : project.esm ? 'js' : 'mjs'}`))
  const fixtureDir = `${basename(testFile).replace(/\.test\.[cm]?[jt]s$|\.[cm]?[jt]s$/, '')}.fixtures`
  const notes = [...recording.notes]
  for (const dialog of rehearsal.dialogs.filter((d) => d.method !== 'confirm')) {
    notes.push(`${dialog.method}(${JSON.stringify(dialog.title)}) is answered as dismissed: a session file does not hold what the user chose; set mockUI.${dialog.method} if it was otherwise`)
  }
  const test = renderTest({
    sessionFile: relative(dir, session).startsWith('..') ? basename(session) : relative(dir, session),
    extension: ext,
    flags,
    recording: redacted,
    rehearsal,
    notes,
    redactions: redactor.report(),
    typescript: /\.[cm]?ts$/.test(testFile),
    fixtureDir,
  })
  const changes: Change[] = [
    writeFile(dir, testFile, test.text, force),
    ...test.fixtures.map((fixture) => writeFile(dir, join(dirname(testFile), fixtureDir, fixture.name), fixture.text, force)),
  ]
  for (const change of changes) log(describeChange(change))
  const redactions = redactor.report()
  log(redactions.length === 0 ? 'Redacted: nothing (no API key, token, Authorization header or home path found).' : `Redacted:\n${redactions.map((line) => `  ${line}`).join('\n')}`)
  for (const note of notes) log(`Note: ${note}`)
  if (rehearsal.problem) {
    log(`The test does not pass as written: ${rehearsal.problem}`)
    log('Set the flags the session ran with (--flag name=value), answer its dialogs (mockUI), or name the extension it ran with (--extension).')
    return EXIT.failed
  }
  if (changes.some((change) => change.outcome === 'kept')) return EXIT.failed
  log('')
  log(`Next: npx vitest run ${relative(dir, testFile)}`)
  return EXIT.ok
}

/** The package's one extension; several need --extension. */
async function theExtension(dir: string): Promise<string> {
  const { files } = await findExtensions(dir)
  if (files.length === 1) return files[0]!
  if (files.length === 0) throw new CliError(`${join(dir, 'package.json')}: no extension found; name the one the session ran with: --extension <path>`, EXIT.usage)
  throw new CliError(`the package has ${files.length} extensions (${files.join(', ')}): name the one the session ran with, --extension <path>`, EXIT.usage)
}

function relativeToRoot(dir: string, file: string): string {
  const rel = relative(dir, file).split('\\').join('/')
  return rel.startsWith('..') ? file : `./${rel}`
}
