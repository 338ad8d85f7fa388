// Mocked by the polluting file with vi.mock; every other file must get this module as written.
export const value: string = 'real'
