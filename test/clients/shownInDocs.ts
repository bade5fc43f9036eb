/** Whether docs/CLIENTS.md shows the recipe file `path` (from the repository root) whole, as it is. */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(import.meta.dirname, '../..');
const page = readFileSync(join(root, 'docs/CLIENTS.md'), 'utf8');

export function shownInDocs(path: string): boolean {
  const lang = path.endsWith('.json') ? 'json' : 'ts';
  return page.includes(`\`\`\`${lang}\n${readFileSync(join(root, path), 'utf8')}\`\`\`\n`);
}
