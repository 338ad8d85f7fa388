// Types of network-floor.mjs (plain JavaScript, so that worker threads can load it too).
export interface Floor {
  /** What reached the floor beyond loopback, in order: `tcp 192.0.2.1:80`, `udp 192.0.2.1:53`, `dns queryA example.com`. */
  readonly stopped: string[]
  restore(): void
}
/** Lays the floor (once per thread) after checking with loopback probes that Node's own calls land on it. */
export function layFloor(): Promise<Floor>
/** The floor laid in this thread, if any. */
export function currentFloor(): Floor | undefined
