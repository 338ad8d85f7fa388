// A stand-in for a network program (curl, wget, nc) in tests of the network guard: it records its argv and
// proxy variables to $FAKE_PROGRAM_LOG, and, like curl, asks the proxy in https_proxy/http_proxy for its URL
// (a CONNECT to that loopback proxy) and prints the answer's status line. Without a proxy it prints DIRECT
// and exits 7, connecting nowhere: it never sends a packet beyond loopback, whatever the guard does.
import { appendFileSync } from 'node:fs'
import net from 'node:net'
import { basename } from 'node:path'

const [program, ...args] = process.argv.slice(2)
const proxyVariable = process.env.https_proxy ?? process.env.http_proxy
appendFileSync(process.env.FAKE_PROGRAM_LOG, `${JSON.stringify({ program: basename(program), args, proxy: proxyVariable ?? null, noProxy: process.env.no_proxy ?? null })}\n`)
const url = args.find((arg) => /^\w+:\/\//.test(arg))
if (url === undefined) process.exit(0)
if (proxyVariable === undefined) {
  console.log(`DIRECT ${new URL(url).host}`)
  process.exit(7)
}
const proxy = new URL(proxyVariable)
if (!['127.0.0.1', 'localhost', '[::1]'].includes(proxy.hostname)) {
  console.log(`NON-LOOPBACK PROXY ${proxy.host}`)
  process.exit(5)
}
const target = `${new URL(url).hostname}:${new URL(url).port || 443}`
const auth = Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString('base64')
const socket = net.connect(Number(proxy.port), proxy.hostname, () =>
  socket.write(`CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\nUser-Agent: ${basename(program)}/1.0\r\nProxy-Authorization: Basic ${auth}\r\n\r\n`),
)
let answer = ''
socket.on('data', (chunk) => (answer += chunk)).on('end', () => {
  console.log(answer.split('\r\n')[0])
  process.exit(56)
})
