// The setup file: Vite processes it, so the import() below goes through Vite's module runner.
import { setModuleLoader } from '../src/module-loader.js'
import { freshLoader } from './module-loader.js'

setModuleLoader(freshLoader((path) => import(/* @vite-ignore */ path)))
