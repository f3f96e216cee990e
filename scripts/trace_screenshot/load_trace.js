// scripts/trace_screenshot/load_trace.js — opens a Chrome Trace Event file in Chromium's
// DevTools Performance panel (trace_app.html, served by the browser's own remote-debugging
// port; it reads the same JSON trace format Perfetto imports) and saves a screenshot with
// the first process expanded. Run through trace_screenshot.sh, which serves the file.
// Usage: node load_trace.js TRACE_URL OUT.png [WAIT_MS]
const { chromium } = require('playwright-core');

(async () => {
  const [traceUrl, out, waitMs] = process.argv.slice(2);
  const context = await chromium.launchPersistentContext(process.env.PROFILE_DIR, {
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--remote-debugging-port=9222'],
    viewport: { width: 1600, height: 1000 },
    bypassCSP: true,  // DevTools' page only lets itself fetch from its own origin
  });
  const page = await context.newPage();
  const errors = [];
  page.on('console', m => { if (m.type() === 'error' && !m.text().includes('404')) errors.push(m.text()); });
  await page.goto('http://127.0.0.1:9222/devtools/trace_app.html?loadTimelineFromURL=' + traceUrl);
  await page.waitForTimeout(Number(waitMs || 30000));
  await page.keyboard.press('Escape');  // the keyboard-shortcuts tip
  await page.mouse.click(250, 129);     // the first process's disclosure triangle
  await page.waitForTimeout(1500);
  await page.screenshot({ path: out });
  await context.close();
  if (errors.length) {
    console.error('trace viewer errors:\n' + errors.join('\n'));
    process.exit(1);
  }
})().catch(e => { console.error(e.message); process.exit(1); });
