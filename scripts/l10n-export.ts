/**
 * `npx tsx scripts/l10n-export.ts`: writes l10n/bundle.l10n.json, the English
 * originals of every `t(…)` in src/adapters/vscode/ (see l10n-strings.ts),
 * the file a translator copies to bundle.l10n.<locale>.json. With --check it
 * writes nothing and fails when the file is not what the sources give.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { BUNDLE, bundleText, extract, ROOT } from './l10n-strings';

function main(check: boolean): number {
  const { found, problems } = extract();
  if (problems.length > 0) {
    process.stderr.write(`l10n-export: ${problems.join('\n  ')}\n`);
    return 1;
  }
  const text = bundleText(found);
  const shown = relative(ROOT, BUNDLE);
  if (check) {
    const current = existsSync(BUNDLE) ? readFileSync(BUNDLE, 'utf8') : '';
    if (current === text) return 0;
    process.stderr.write(`l10n-export: ${shown} is not what the sources say: run npx tsx scripts/l10n-export.ts\n`);
    return 1;
  }
  mkdirSync(dirname(BUNDLE), { recursive: true });
  writeFileSync(BUNDLE, text);
  process.stdout.write(`${shown}: ${Object.keys(JSON.parse(text) as object).length} messages\n`);
  return 0;
}

process.exitCode = main(process.argv.includes('--check'));
