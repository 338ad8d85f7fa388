// A local module with state: each file that imports it must start from zero.
let count = 0
export const next = (): number => ++count
