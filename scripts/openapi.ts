/**
 * `npm run openapi`: writes docs/openapi.json from the code (a test keeps the committed copy
 * identical), and the SDK's types from it (sdk/scripts/types.ts).
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderOpenApiDocument } from './openapi-document.ts';
import { SDK_TYPES_PATH, writeSdkTypes } from '../sdk/scripts/types.ts';
import { parseCommandLine } from './cli.ts';

parseCommandLine({ options: {} }, 'Usage: npm run openapi -- [--help]  (writes docs/openapi.json from the code, then the SDK\'s types from it)');

const target = resolve(import.meta.dirname, '../docs/openapi.json');
writeFileSync(target, renderOpenApiDocument());
console.log(`Wrote ${target}`);
console.log(`${SDK_TYPES_PATH}: ${await writeSdkTypes()}`);
