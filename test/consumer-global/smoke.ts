import { calls, says, when } from 'vitest-environment-pi/core'

// Runs against the installed copy of ./pi-package, in the global setup.
export default {
  script: [when('Say hello to Ada', [calls('hello', { name: 'Ada' }), says('Said hello.')])],
}
