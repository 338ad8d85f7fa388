// Peak memory growth of the bench process while `fn` runs: RSS and V8 heap, sampled every `everyMs`.
import { MB } from './stats.mjs'

export async function measurePeakGrowth(fn, everyMs = 2) {
  globalThis.gc?.()
  globalThis.gc?.()
  const base = process.memoryUsage()
  const peak = { rss: base.rss, heapUsed: base.heapUsed, external: base.external }
  let samples = 0
  const sample = () => {
    const now = process.memoryUsage()
    samples++
    if (now.rss > peak.rss) peak.rss = now.rss
    if (now.heapUsed > peak.heapUsed) peak.heapUsed = now.heapUsed
    if (now.external > peak.external) peak.external = now.external
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
  }
}
