// CPU profiles of what the bench times, taken in the bench's own process: the inspector's profiler runs only
// while a side's timed block or turn runs, so both sides are sampled in one process state. (Profiles of two
// processes, one per side, differ by more than the harness does: Pi's own code ran 8 % slower in one of them.)
// Each timed stretch is written to its own file, `<label>-NNN.cpuprofile`; profile-summary.mjs sums them per side.
import { Session } from 'node:inspector/promises'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const SAMPLING_INTERVAL_US = 100

/** Runs `work` as is when `dir` is undefined; else profiles it. */
export async function createProfiler(dir) {
  if (dir === undefined) return { profiled: false, around: (_label, work) => work() }
  mkdirSync(dir, { recursive: true })
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  // An (a) block of ten sessions lasts 15-30 ms: at the default 1 ms it would get a dozen samples.
  await session.post('Profiler.setSamplingInterval', { interval: SAMPLING_INTERVAL_US })
  const written = new Map()
  return {
    profiled: true,
    async around(label, work) {
      if (label === undefined) return work()
      await session.post('Profiler.start')
      try {
        return await work()
      } finally {
        const { profile } = await session.post('Profiler.stop')
        // The first sample's delta is the profiler's own start (60-100 ms here), not time the work spent.
        if (profile.timeDeltas.length > 0) profile.timeDeltas[0] = 0
        const count = (written.get(label) ?? 0) + 1
        written.set(label, count)
        writeFileSync(join(dir, `${label}-${String(count).padStart(3, '0')}.cpuprofile`), JSON.stringify(profile))
      }
    },
  }
}
