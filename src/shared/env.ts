// Environment variables set for a while and put back exactly as they were.

/** Sets variables and remembers exactly what it replaced, so that restoring puts back only that. */
export function setEnv(values: Record<string, string>): () => void {
  const previous = Object.keys(values).map((key) => [key, process.env[key]] as const)
  Object.assign(process.env, values)
  return () => {
    for (const [key, value] of previous) {
      if (value === undefined) delete process.env[key]
      else process.env[key] = value
    }
  }
}
