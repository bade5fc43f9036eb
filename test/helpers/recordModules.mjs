/**
 * `node --import ./test/helpers/recordModules.mjs …` with RECORD_MODULES=<file>: appends the URL of
 * every module the process resolves through the ESM loader to that file, one per line (the
 * hooks live in recordModulesHooks.mjs, which Node runs on its loader thread).
 */
import { register } from 'node:module';

if (process.env.RECORD_MODULES) register('./recordModulesHooks.mjs', import.meta.url, { data: { file: process.env.RECORD_MODULES } });
