// A spec pattern must never freeze the process: a frozen event loop lets no test timeout fire. The
// patterns run in a worker thread here, so a regression fails this test after a bounded wait instead
// of freezing the run.
import { Worker } from 'node:worker_threads'
import { expect, it } from 'vitest'

// Bounds, not speed checks: loading takes seconds (the worker loads Pi), a linear-time match microseconds,
// and a backtracking engine about 2^40 steps for the input below.
const LOAD_LIMIT_MS = 90_000
const MATCH_LIMIT_MS = 10_000

/** The worker's answer after its 'loaded' message; the worker is terminated (which stops even a busy loop) once it answers, fails or runs out of time. */
function answerOf(file: string, workerData: unknown): Promise<unknown> {
  const worker = new Worker(new URL(file, import.meta.url), { workerData })
  let timer: NodeJS.Timeout | undefined
  const fail = (reject: (error: Error) => void, message: string) => () => reject(new Error(`${file} ${message}`))
  return new Promise<unknown>((resolve, reject) => {
    timer = setTimeout(fail(reject, `did not load within ${LOAD_LIMIT_MS} ms`), LOAD_LIMIT_MS)
    worker.on('message', (message: unknown) => {
      clearTimeout(timer)
      if (message !== 'loaded') return resolve(message)
      timer = setTimeout(fail(reject, `was still matching after ${MATCH_LIMIT_MS} ms: its event loop is blocked`), MATCH_LIMIT_MS)
    })
    worker.once('error', reject)
    worker.once('exit', (code) => reject(new Error(`${file} exited with code ${code} before it answered`)))
  }).finally(() => {
    clearTimeout(timer)
    void worker.terminate()
  })
}

it('url_pattern and cmd_pattern "(a+)+$" against 40 × "a" answer at once, falling through to the default', async () => {
  const outcome = await answerOf('../fixtures/workers/catastrophic-patterns.mjs', { length: 40 })
  expect(outcome).toEqual({ http: 404, exec: 'default' })
}, 120_000)
