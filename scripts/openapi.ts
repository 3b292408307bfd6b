/** `npm run openapi`: writes docs/openapi.json from the code (a test keeps the committed copy identical). */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { renderOpenApiDocument } from './openapi-document.ts';

const target = resolve(import.meta.dirname, '../docs/openapi.json');
writeFileSync(target, renderOpenApiDocument());
console.log(`Wrote ${target}`);
