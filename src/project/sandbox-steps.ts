// The sandbox's steps and the error a step throws: values a caller holds before the sandbox itself is loaded.

export const SANDBOX_STEPS = ['npm pack', 'npm install', 'load', 'expect', 'smoke'] as const
export type SandboxStep = (typeof SANDBOX_STEPS)[number]

/** A step that could not run to its end: npm failed or timed out, or Pi's loader threw. */
export class SandboxError extends Error {
  constructor(
    readonly step: SandboxStep,
    message: string,
    readonly outputTail?: string,
    options?: ErrorOptions,
  ) {
    super(`sandbox ${step}: ${message}`, options)
    this.name = 'SandboxError'
  }
}
