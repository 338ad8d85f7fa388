// Where attached sessions go: one readable, unique folder per test, one copy of each file, nothing of earlier runs.
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { clearEarlierAttachments, keepOneCopy, pathSlug } from '../environment/attach-files.js'

describe('pathSlug', () => {
  it('keeps the name readable and adds a hash of the whole name, so names one slug would merge stay apart', () => {
    expect(pathSlug('add > blocks rm -rf')).toMatch(/^add-blocks-rm-rf-[0-9a-f]{6}$/)
    expect(pathSlug('a b')).toMatch(/^a-b-[0-9a-f]{6}$/)
    expect(pathSlug('a/b')).toMatch(/^a-b-[0-9a-f]{6}$/)
    expect(pathSlug('a b')).not.toBe(pathSlug('a/b'))
  })

  it('keeps letters of any script, and names a name with none', () => {
    expect(pathSlug('日本語のテスト › 保存')).toMatch(/^日本語のテスト-保存-[0-9a-f]{6}$/)
    expect(pathSlug('Ünïcödé')).toMatch(/^Ünïcödé-[0-9a-f]{6}$/)
    expect(pathSlug('🚀 / 🚀')).toMatch(/^unnamed-[0-9a-f]{6}$/)
    expect(pathSlug('🚀 / 🚀')).not.toBe(pathSlug('🚀'))
  })

  it('stays one short path segment for a long name', () => {
    const slug = pathSlug('x'.repeat(500))
    expect(slug).not.toContain('/')
    expect(slug.length).toBe(67)
  })
})

describe('attached files', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pi-attach-files-'))
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it("keeps Vitest's copy alone, and the next run removes it, the files left and their empty folders, nothing else", () => {
    const attachDir = join(dir, 'pi-sessions')
    const copies = join(dir, 'attachments')
    const written = join(attachDir, 'file-1a2b3c', 'test-4d5e6f', 'session-1.html')
    mkdirSync(join(attachDir, 'file-1a2b3c', 'test-4d5e6f'), { recursive: true })
    mkdirSync(copies)
    writeFileSync(written, '<html>')
    writeFileSync(join(copies, 'session-1-abc.html'), '<html>')
    writeFileSync(join(copies, 'not-ours.png'), 'png')
    writeFileSync(join(attachDir, 'users-own.txt'), 'kept')

    keepOneCopy(attachDir, written, join(copies, 'session-1-abc.html'))
    expect(existsSync(written)).toBe(false)
    expect(existsSync(join(attachDir, 'file-1a2b3c'))).toBe(false)

    // A file Vitest did not copy stays until the next run.
    const uncopied = join(attachDir, 'file-1a2b3c', 'test-4d5e6f', 'session-2.jsonl')
    mkdirSync(join(attachDir, 'file-1a2b3c', 'test-4d5e6f'), { recursive: true })
    writeFileSync(uncopied, '{}')
    keepOneCopy(attachDir, uncopied, undefined)
    expect(existsSync(uncopied)).toBe(true)
    // A blank line in the list (an editor's, or a line cut short) does not end it: the files after it go too.
    const later = join(attachDir, 'file-1a2b3c', 'test-7a8b9c', 'session-3.html')
    mkdirSync(dirname(later), { recursive: true })
    writeFileSync(later, '<html>')
    appendFileSync(join(attachDir, '.attached-files'), '\n')
    keepOneCopy(attachDir, later, undefined)

    clearEarlierAttachments(attachDir)
    expect(readdirSync(copies)).toEqual(['not-ours.png'])
    expect(readdirSync(attachDir)).toEqual(['users-own.txt'])
  })

  it('does nothing in a folder no run attached from', () => {
    mkdirSync(join(dir, 'empty'), { recursive: true })
    clearEarlierAttachments(join(dir, 'empty'))
    clearEarlierAttachments(join(dir, 'missing'))
    expect(readdirSync(join(dir, 'empty'))).toEqual([])
  })
})
