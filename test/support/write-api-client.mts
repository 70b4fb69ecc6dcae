import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLIENT_TYPES, generateClientTypes } from './api-client';

writeFileSync(join(import.meta.dirname, '../..', CLIENT_TYPES), await generateClientTypes());
console.log(`wrote ${CLIENT_TYPES}`);
