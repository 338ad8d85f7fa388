// Small statistics helpers; all times in milliseconds.
export function quantile(values, q) {
  if (values.length === 0) return NaN
  const sorted = [...values].sort((a, b) => a - b)
  const position = (sorted.length - 1) * q
  const lower = Math.floor(position)
  const upper = Math.ceil(position)
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower)
}

export const median = (values) => quantile(values, 0.5)
export const mean = (values) => values.reduce((sum, v) => sum + v, 0) / values.length

export function summary(values) {
  return { n: values.length, median: median(values), p90: quantile(values, 0.9), min: Math.min(...values), max: Math.max(...values), mean: mean(values) }
}

export const round = (value, digits = 3) => (Number.isFinite(value) ? Number(value.toFixed(digits)) : value)
export const MB = 1024 * 1024
