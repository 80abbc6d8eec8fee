import { writeFileSync } from 'node:fs';
import { PUBLIC_SUFFIXES_FILE, packPublicSuffixes } from './public-suffixes.ts';

/** `npm run public-suffixes`: rewrites the compact Public Suffix List from the installed tldts (after updating it). */
writeFileSync(PUBLIC_SUFFIXES_FILE, packPublicSuffixes());
console.log(`Wrote ${PUBLIC_SUFFIXES_FILE}`);
