// The Pi line the bench runs: the harness's own choice (VITEST_PI_PACKAGE, else the first installed line
// that runs on this Node), so that bare Pi is always the same Pi as the harness's sessions. Reading the
// choice imports no Pi; `bare()` imports the line's bare module (lines/<name>.mjs), which imports only Pi.
import { findPiLine } from '../../dist/src/pi/line.js'

export const PI_LINE = findPiLine()

/** The running line's half of bare Pi: Pi's exports that keep their names, and what differs per line. */
export const bareLine = () => (PI_LINE.scope === '@earendil-works' ? import('./lines/earendil.mjs') : import('./lines/mariozechner.mjs'))
