// Drives the approval page in headless Chromium: opens URL, waits for the
// pending ask (for WAIT, a selector: the highlight by default), unticks
// the change of path UNTICK (a review) if given, saves a screenshot to
// SHOT, clicks the button of ACTION (once, session, always, deny; all,
// apply) and checks that the page then has nothing waiting. Run by
// page_test.go.
import { chromium } from 'playwright-core';

const [url, shot, action, wait = 'mark', untick = ''] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await browser.newPage({ viewport: { width: 1000, height: 720 } });
  await page.goto(url);
  await page.waitForSelector(wait, { timeout: 15000 });
  if (untick) await page.uncheck(`input[name="path"][value="${untick}"]`);
  await page.screenshot({ path: shot, fullPage: true });
  await Promise.all([
    page.waitForURL(url, { waitUntil: 'load', timeout: 15000 }),
    page.click(`button[value="${action}"]`),
  ]);
  await page.waitForSelector('#none', { timeout: 15000 });
} finally {
  await browser.close();
}
