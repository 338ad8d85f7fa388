// The examples' session-report suite with every session attached (passing tests too) and Vitest's HTML
// report, for screenshot.mjs: everything it writes goes under $SHOT_OUT.
import { join, resolve } from 'node:path'
import { defineConfig } from 'vitest/config'
import { pi } from '../../environment/plugin.js'

const out = process.env.SHOT_OUT
if (!out) throw new Error('SHOT_OUT must name the folder this run writes to (screenshot.mjs sets it)')

export default defineConfig({
  plugins: [pi({ attach: 'always', attachDir: join(out, 'pi-sessions') })],
  test: {
    root: resolve(import.meta.dirname, '../../examples'),
    include: ['session-report/*.test.ts'],
    attachmentsDir: join(out, 'attachments'),
    reporters: ['default', ['html', { outputFile: join(out, 'html/index.html') }]],
  },
})
