// The standard extension as a file, for the sides that run in a `pi` process: Pi loads extensions from files.
export { standardExtension as default } from './standard.mjs'
