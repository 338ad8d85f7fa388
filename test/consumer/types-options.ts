// Session options are typed too.
import { createTestSession } from 'vitest-environment-pi'

void createTestSession({ toolExecution: 'sequential', mockUI: { select: 'Yes', strict: true } })
// @ts-expect-error toolExecution is parallel or sequential
void createTestSession({ toolExecution: 'random' })
// @ts-expect-error confirm answers are booleans
void createTestSession({ mockUI: { confirm: 'yes' } })
