import type { ExtensionAPI } from '@mariozechner/pi-coding-agent'
import { Type } from 'typebox'

const API = 'https://api.open-meteo.test/v1/forecast'

interface WeatherDetails {
  temperature?: number
  status?: number
}

/** A `weather` tool backed by an HTTP API; an API failure is reported to the model, not thrown. */
export default function weather(pi: ExtensionAPI) {
  pi.registerTool({
    name: 'weather',
    label: 'Weather',
    description: 'Current weather for a city',
    parameters: Type.Object({ city: Type.String() }),
    async execute(_id, { city }) {
      const response = await fetch(`${API}?city=${encodeURIComponent(city)}`, { headers: { accept: 'application/json' } })
      if (!response.ok) {
        return { content: [{ type: 'text', text: `The weather service answered ${response.status} for ${city}.` }], details: { status: response.status } as WeatherDetails }
      }
      const { temperature, summary } = (await response.json()) as { temperature: number; summary: string }
      return { content: [{ type: 'text', text: `${city}: ${summary}, ${temperature} °C` }], details: { temperature } as WeatherDetails }
    },
  })
}
