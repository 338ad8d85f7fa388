import { expect, it } from 'vitest'
import { calls, createTestSession, says, when } from 'vitest-environment-pi'

const weather = { extensions: ['./weather/index.ts'], mockSpec: './weather/weather.mock.json' }

it('answers from the API described in the mock spec', async () => {
  const t = await createTestSession(weather)
  await t.run(when('Weather in Oslo?', [calls('weather', { city: 'Oslo' }), says('Light rain, 4 °C.')]))
  expect(t).toHaveToolResult('weather', { text: 'Oslo: light rain, 4 °C', details: { temperature: 4 } })
  expect(t).toHaveFetched('city=Oslo', { method: 'GET' })
  expect(t).toHaveUsedAllMocks()
})

it('tells the model when the service fails', async () => {
  const t = await createTestSession(weather)
  await t.run(when('Weather in Bergen?', [calls('weather', { city: 'Bergen' }), says('The service is down.')]))
  expect(t).toHaveToolResult('weather', { text: 'The weather service answered 503 for Bergen.' })
  expect(t.events.http).toMatchObject([{ status: 503, answeredBy: 'http.default_response' }])
})
