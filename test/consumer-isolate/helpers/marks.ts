// Marks left on disk by the polluting file, where no reset can reach: how the check file sees its timers and session.
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const DIR = join(import.meta.dirname, '..', '.marks')
mkdirSync(DIR, { recursive: true })

export const mark = (name: string, text: string): void => appendFileSync(join(DIR, name), text)
export const setMark = (name: string, text: string): void => writeFileSync(join(DIR, name), text)
export const readMark = (name: string): string => (existsSync(join(DIR, name)) ? readFileSync(join(DIR, name), 'utf8') : '')
