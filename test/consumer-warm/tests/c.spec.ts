import { recordFile } from './file.js'

recordFile('c')
