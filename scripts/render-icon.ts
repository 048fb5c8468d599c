/**
 * `npx tsx scripts/render-icon.ts`: draws media/icon.svg into media/icon.png,
 * the 128×128 PNG the Marketplace and Open VSX show (neither takes an SVG
 * icon). Uses the system's headless Chromium through playwright-core, as the
 * VS Code harness does; run it again after changing the SVG and commit both.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const ROOT = join(__dirname, '..');
const SIZE = 128;

async function main(): Promise<void> {
  const svg = readFileSync(join(ROOT, 'media', 'icon.svg'), 'utf8');
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', headless: true, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const page = await browser.newPage({ viewport: { width: SIZE, height: SIZE } });
    const src = `data:image/svg+xml;base64,${Buffer.from(svg).toString('base64')}`;
    await page.setContent(`<body style="margin:0"><img src="${src}" width="${SIZE}" height="${SIZE}" style="display:block"></body>`);
    await page.locator('img').evaluate((img: HTMLImageElement) => img.decode());
    await page.screenshot({ path: join(ROOT, 'media', 'icon.png'), omitBackground: true });
  } finally {
    await browser.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`render-icon: ${(error as Error).message}\n`);
  process.exitCode = 1;
});
