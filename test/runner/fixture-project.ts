import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const createdDirs: string[] = []

/** Writes a throwaway npm project with the given scripts and extra files. */
export async function createFixtureProject(
  scripts: Record<string, string>,
  files: Record<string, string> = {},
): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'pi-runner-'))
  createdDirs.push(dir)
  const manifest = { name: 'fixture', version: '1.0.0', private: true, scripts }
  await writeFile(join(dir, 'package.json'), JSON.stringify(manifest, null, 2))
  for (const [name, content] of Object.entries(files)) await writeFile(join(dir, name), content)
  return dir
}

export async function removeFixtureProjects(): Promise<void> {
  await Promise.all(createdDirs.splice(0).map((dir) => rm(dir, { recursive: true, force: true })))
}

/** True while the process can still run: a zombie waiting for PID 1 to reap it counts as gone. */
export function isProcessRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false
    throw error
  }
  return !isZombie(pid)
}

function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // The state letter follows the parenthesised command name, which may itself contain spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z')
  } catch {
    return false
  }
}

export function readPid(dir: string, name: string): number {
  return Number(readFileSync(join(dir, name), 'utf8').trim())
}

/** Keeps npm from appending its update notice, which would change the tail. */
export const quietNpmEnv = { npm_config_update_notifier: 'false', npm_config_fund: 'false' }
