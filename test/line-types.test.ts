// The published types with ONE Pi line installed: a project with only @earendil-works/pi-coding-agent, and
// one with only @mariozechner/pi-coding-agent, each compiled by tsc with skipLibCheck off. The fixture's
// ts-expect-error lines fail the compile if a type collapses to `any` or names the line that is absent.
import { afterAll, describe, expect, it } from 'vitest'
import { installTypesConsumer, type PiScope, type TypesConsumer } from './support/consumer.js'

const LINES: Record<PiScope, string> = { '@earendil-works': 'earendil', '@mariozechner': 'mariozechner' }

describe.each(Object.entries(LINES) as [PiScope, string][])('a project with only %s/pi-coding-agent', (scope, folder) => {
  let consumer: TypesConsumer | undefined
  afterAll(() => consumer?.remove())

  it('typechecks the quick start, the fixture, the matchers, inline factories and t.session against that line', async () => {
    consumer = await installTypesConsumer('test/consumer-types', scope)
    expect(consumer.typecheck(`tsconfig.${folder}.json`)).toEqual([])
  }, 300_000)

  it('typechecks the same with Bundler module resolution', () => {
    expect(consumer!.typecheck(`tsconfig.${folder}.bundler.json`)).toEqual([])
  }, 300_000)
})
