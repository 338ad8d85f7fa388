// Bare `pi --mode rpc` doing the standard turn, as a hand-built process harness does it: spawn Pi with the
// scripted provider and the standard extension, wait for its first answer, prompt, wait for agent_end, close
// stdin and wait for the exit. Its own temp HOME and agent dir, offline; no guard, no IPC, no records.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { BENCH_RPC_MODEL } from './rpc-bare-model.mjs'

const here = (file) => fileURLToPath(new URL(file, import.meta.url))

/** One bare turn; resolves with the agent_end messages once the child has exited. */
export async function bareRpcTurn(cli, prompt) {
  const home = mkdtempSync(join(tmpdir(), 'pi-bench-rpc-'))
  try {
    const args = [cli, '--mode', 'rpc', '--provider', BENCH_RPC_MODEL.provider, '--model', BENCH_RPC_MODEL.id, '-e', here('./rpc-bare-provider.mjs'), '-e', here('./standard-extension.mjs')]
    const env = { ...process.env, HOME: home, PI_CODING_AGENT_DIR: join(home, '.pi', 'agent'), PI_OFFLINE: '1', PI_TELEMETRY: '0', PI_SKIP_VERSION_CHECK: '1' }
    const child = spawn(process.execPath, args, { cwd: home, env, stdio: ['pipe', 'pipe', 'pipe'] })
    let stderr = ''
    child.stderr.on('data', (chunk) => (stderr += chunk))
    const exited = new Promise((resolve) => child.once('exit', resolve))
    const messages = await new Promise((resolve, reject) => {
      let buffer = ''
      child.stdout.on('data', (chunk) => {
        buffer += chunk
        for (let at = buffer.indexOf('\n'); at !== -1; at = buffer.indexOf('\n')) {
          const record = JSON.parse(buffer.slice(0, at))
          buffer = buffer.slice(at + 1)
          if (record.type === 'response' && record.id === 'ready') child.stdin.write(`${JSON.stringify({ type: 'prompt', id: 'turn', message: prompt })}\n`)
          if (record.type === 'agent_end') resolve(record.messages)
        }
      })
      child.once('exit', (code) => reject(new Error(`bare pi --mode rpc exited with code ${code}: ${stderr.slice(-2000)}`)))
      child.stdin.write(`${JSON.stringify({ type: 'get_state', id: 'ready' })}\n`)
    })
    child.stdin.end()
    await exited
    return { messages, errors: [] }
  } finally {
    rmSync(home, { recursive: true, force: true })
  }
}
