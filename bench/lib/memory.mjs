// Peak memory growth of the bench process while `fn` runs: RSS and V8 heap, sampled every `everyMs`.
// With `collectOverMB`, what `fn` still holds instead: a sample whose heap or Buffer growth is over that many
// MB is read again after a full GC, so that garbage Node has not collected yet does not count (Buffers read
// and dropped wait for a GC until about 32 MB of them on Node 20 and 22 and 64 MB on Node 24, whoever reads them).
import { MB } from './stats.mjs'

export async function measurePeakGrowth(fn, { everyMs = 2, collectOverMB } = {}) {
  globalThis.gc?.()
  globalThis.gc?.()
  const base = process.memoryUsage()
  const peak = { rss: base.rss, heapUsed: base.heapUsed, external: base.external, held: 0 }
  let samples = 0
  const over = (usage) => usage.heapUsed - base.heapUsed > collectOverMB * MB || usage.external - base.external > collectOverMB * MB
  const sample = () => {
    let now = process.memoryUsage()
    if (collectOverMB !== undefined && over(now)) {
      globalThis.gc()
      now = process.memoryUsage()
    }
    samples++
    if (now.rss > peak.rss) peak.rss = now.rss
    if (now.heapUsed > peak.heapUsed) peak.heapUsed = now.heapUsed
    if (now.external > peak.external) peak.external = now.external
    peak.held = Math.max(peak.held, now.heapUsed - base.heapUsed + now.external - base.external)
  }
  const timer = setInterval(sample, everyMs)
  const started = performance.now()
  let result
  try {
    result = await fn()
  } finally {
    clearInterval(timer)
    sample()
  }
  const ms = performance.now() - started
  return {
    result,
    ms,
    samples,
    meanSampleIntervalMs: ms / samples,
    baseRssMB: base.rss / MB,
    rssGrowthMB: (peak.rss - base.rss) / MB,
    heapGrowthMB: (peak.heapUsed - base.heapUsed) / MB,
    externalGrowthMB: (peak.external - base.external) / MB,
    ...(collectOverMB === undefined ? {} : { heldGrowthMB: peak.held / MB }),
  }
}
