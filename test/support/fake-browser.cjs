#!/usr/bin/env node
/**
 * The browser of the sign-in tests, named by CROW_BROWSER: given the
 * authorization URL, it loads the authorization server's consent page,
 * follows its "Allow" link (or "Deny") and the redirect back to Crow's
 * loopback address, as a person's browser would. FAKE_BROWSER_MODE:
 * approve (default), deny, forged-first (first calls Crow back with a
 * forged state, then approves), ignore (never comes back). Each address it
 * visits is appended to FAKE_BROWSER_LOG, when set.
 */
const { appendFileSync } = require('node:fs');

const mode = process.env.FAKE_BROWSER_MODE || 'approve';
const visit = async (url) => {
  if (process.env.FAKE_BROWSER_LOG) appendFileSync(process.env.FAKE_BROWSER_LOG, `${url}\n`);
  return fetch(url, { redirect: 'manual' });
};

async function main(start) {
  if (mode === 'ignore') return;
  const page = await visit(start);
  if (page.status !== 200) throw new Error(`the authorization page answered ${page.status}: ${await page.text()}`);
  const html = await page.text();
  const link = new RegExp(`id="${mode === 'deny' ? 'deny' : 'approve'}" href="([^"]+)"`).exec(html);
  if (!link) throw new Error(`no consent link on the page: ${html.slice(0, 200)}`);
  const decided = await visit(new URL(link[1].replace(/&amp;/g, '&'), start).href);
  const back = decided.headers.get('location');
  if (!back) throw new Error(`the consent did not send the browser back (${decided.status})`);
  if (mode === 'forged-first') {
    const forged = new URL(back);
    forged.searchParams.set('state', 'forged');
    forged.searchParams.set('code', 'forged-code');
    const answer = await visit(forged.href);
    if (answer.status !== 400) throw new Error(`Crow accepted a forged state (${answer.status})`);
  }
  await visit(back);
}

main(process.argv[2]).catch((err) => {
  process.stderr.write(`fake browser: ${err.message}\n`);
  process.exit(1);
});
