// Where a test's attached sessions are written, and what is left of them: one readable, unique folder per
// test, one copy of each file (Vitest's), and nothing of earlier runs. Plain files: the config process
// clears earlier runs' attachments without loading Pi.
import { createHash } from 'node:crypto'
import { appendFileSync, existsSync, readFileSync, rmdirSync, rmSync } from 'node:fs'
import { dirname, join } from 'node:path'

/**
 * A name as one path segment, readable and unique, as Playwright names its test-results folders: the name
 * with anything but letters, digits, `_`, `.` and `-` made `-` (letters of any script stay), then a short
 * hash of the whole name, so `a b` and `a/b` get two folders: `add › blocks rm -rf` → `add-blocks-rm-rf-3f9a1c`.
 */
export function pathSlug(name: string): string {
  const readable =
    name
      .normalize('NFC')
      .replace(/[^\p{L}\p{N}_.-]+/gu, '-')
      .replace(/-{2,}/g, '-')
      .replace(/^[-.]+|-+$/g, '')
      .slice(0, 60)
      .replace(/-+$/, '') || 'unnamed'
  return `${readable}-${createHash('sha256').update(name).digest('hex').slice(0, 6)}`
}

// The files attached from an attachDir, one path a line (Vitest's copies, and those written here that
// are still there): the next run removes them.
const ATTACHED = '.attached-files'

/**
 * Vitest copied the attached file into its attachments dir (`copy`): that copy is the one its reporters
 * show, so the one written here goes, and the copy is listed for the next run to remove.
 */
export function keepOneCopy(attachDir: string, written: string, copy: string | undefined): void {
  const kept = copy ?? written
  appendFileSync(join(attachDir, ATTACHED), `${kept}\n`)
  if (kept === written) return
  rmSync(written, { force: true })
  removeEmptyDirs(written, attachDir)
}

/** Removes `file`, which was not attached (Pi could not write it whole), and its folders left empty. */
export function discardWritten(attachDir: string, file: string): void {
  rmSync(file, { force: true })
  removeEmptyDirs(file, attachDir)
}

/**
 * Removes what earlier runs attached from `attachDir` and Vitest's copies of it: only the files listed,
 * never the folder itself, which a project may point anywhere.
 */
export function clearEarlierAttachments(attachDir: string): void {
  const list = join(attachDir, ATTACHED)
  if (!existsSync(list)) return
  for (const file of readFileSync(list, 'utf8').split('\n')) {
    if (file === '') continue
    rmSync(file, { force: true })
    removeEmptyDirs(file, attachDir)
  }
  rmSync(list, { force: true })
}

/** Removes the folders of `file` up to `top` (not included) while they are empty. */
function removeEmptyDirs(file: string, top: string): void {
  for (let dir = dirname(file); dir.startsWith(`${top}/`); dir = dirname(dir)) {
    try {
      rmdirSync(dir)
    } catch {
      return
    }
  }
}
