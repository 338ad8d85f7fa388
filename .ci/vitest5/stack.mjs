// The Vitest 5 leg's checkout: a copy of the work tree whose package.json is the repo's with the versions in
// overrides.json, installed from the lockfile beside this script. `npm ci` there fails if the two disagree
// (a dependency changed in the repo's package.json): then `node .ci/vitest5/stack.mjs DIR --lock` writes it anew.
import { execFileSync } from 'node:child_process'
import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'

const here = import.meta.dirname
const root = resolve(here, '../..')
const [target, mode] = process.argv.slice(2)
if (!target) throw new Error('usage: node .ci/vitest5/stack.mjs DIR [--lock]')
const dir = resolve(target)

rmSync(dir, { recursive: true, force: true })
const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' })
for (const file of files.split('\0').filter(Boolean)) {
  mkdirSync(dirname(join(dir, file)), { recursive: true })
  cpSync(join(root, file), join(dir, file))
}

const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const { devDependencies } = JSON.parse(readFileSync(join(here, 'overrides.json'), 'utf8'))
for (const [name, version] of Object.entries(devDependencies)) {
  if (!(name in pkg.devDependencies)) throw new Error(`overrides.json names ${name}, which package.json does not have`)
  pkg.devDependencies[name] = version
}
writeFileSync(join(dir, 'package.json'), JSON.stringify(pkg, null, 2) + '\n')

if (mode === '--lock') {
  // Start from the repo's lockfile, so that every package both legs share keeps the version the repo pins.
  copyFileSync(join(root, 'package-lock.json'), join(dir, 'package-lock.json'))
  execFileSync('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' })
  copyFileSync(join(dir, 'package-lock.json'), join(here, 'package-lock.json'))
} else {
  copyFileSync(join(here, 'package-lock.json'), join(dir, 'package-lock.json'))
}
