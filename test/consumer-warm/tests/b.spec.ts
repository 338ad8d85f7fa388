import { recordFile } from './file.js'

recordFile('b')
