import { recordFile } from './file.js'

recordFile('a')
