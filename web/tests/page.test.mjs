// Browser test of `hindsight serve`'s page (issue 40): Playwright drives
// Debian's chromium headless. The page is loaded; a specification with an
// error is typed and the error is seen marked; the specification is fixed
// and run; the violation is seen in the table and on the timeline; its
// explanation is opened; screenshots are saved to docs/web.png (the
// page) and docs/web-error.png (the editor with the error marked).
//
// HINDSIGHT names the binary (default ../../target/release/hindsight),
// CHROMIUM the browser (default /usr/bin/chromium).

import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, dirname } from "node:path";
import { fileURLToPath } from "node:url";
import assert from "node:assert/strict";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
const bin = process.env.HINDSIGHT || join(here, "../../target/release/hindsight");
const screenshot = join(here, "../../docs/web.png");
const errorShot = join(here, "../../docs/web-error.png");

function startServer() {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, ["serve", "--port", "0"], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = out.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (m) resolve({ child, url: `http://127.0.0.1:${m[1]}/` });
    });
    child.on("error", reject);
    child.on("exit", (code) => reject(new Error(`hindsight serve exited with ${code}: ${out}`)));
  });
}

const BAD = "// A file may only be used while it is open.\n" +
  "prop accessWhileOpen :\n  Forall f . (read(f) | write(f) | close(f)) -> @ [open(f), close(f)\n";
const GOOD = "// A file may only be used while it is open.\n" +
  "prop accessWhileOpen :\n  Forall f . (read(f) | write(f) | close(f)) -> @ [open(f), close(f))\n";
const TRACE = "open,a\nread,a\nclose,a\nwrite,a\nopen,b\nclose,b\n";

// Polls `check` (in node: the page's Content-Security-Policy forbids the
// evaluated strings of page.waitForFunction) until it is true.
async function until(what, check, ms = 10000) {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const { child, url } = await startServer();
const profile = mkdtempSync(join(tmpdir(), "hindsight-chromium-"));
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    viewport: { width: 1200, height: 1000 },
  });
  const page = context.pages()[0] || await context.newPage();
  const failed = [];
  page.on("pageerror", (e) => failed.push(String(e)));
  await page.goto(url);
  assert.equal(await page.title(), "hindsight");

  // A specification with an error: marked in the editor and listed.
  await page.fill("#spec", BAD);
  const error = page.locator("#diagnostics li.error");
  await error.waitFor();
  assert.match(await error.textContent(), /^3:69: error: the specification ends too early; expected `\)`/);
  await page.locator("#highlight .err").first().waitFor();
  assert.equal(await page.textContent("#spec-status"), "1 error");
  await page.locator("#spec-pane").screenshot({ path: errorShot });

  // Fixed: no error left.
  await page.fill("#spec", GOOD);
  await until("the fixed spec", async () => (await page.textContent("#spec-status")) === "well-formed");
  assert.equal(await page.locator("#highlight .err").count(), 0);
  assert.ok(await page.locator("#highlight .kw", { hasText: "Forall" }).count() > 0, "keywords highlighted");

  // Run: the violation at event 4 (write(a) after the close).
  await page.fill("#trace", TRACE);
  await page.check("#profile");
  await page.click("#run");
  const row = page.locator("#violations tbody tr").first();
  await row.waitFor();
  assert.equal(await page.locator("#violations tbody tr").count(), 1);
  const cells = await row.locator("td").allTextContents();
  assert.deepEqual(cells, ["4", "4", "accessWhileOpen", "write(a)", "f=a"]);
  assert.equal(await page.textContent("#run-status"), "Violated");
  assert.equal(await page.locator("#timeline .viol").count(), 1);
  assert.equal(await page.locator("#timeline line.tick").count(), 7); // the axis and 6 events
  await page.locator("#profile-plot polyline").first().waitFor();

  // Its explanation: a tree that folds open.
  await row.click();
  await page.locator("#why .tree").waitFor();
  const head = await page.textContent("#why .why-head");
  assert.match(head, /property accessWhileOpen violated at event 4: write\(a\) — for f=a — events cited: 3 close\(a\), 4 write\(a\)/);
  const closed = page.locator("#why details:not([open])");
  assert.ok((await closed.count()) > 0, "deep nodes start folded");
  for (let k = 0; k < 50 && (await closed.count()) > 0; k++) {
    await closed.first().locator(":scope > summary").click();
  }
  await until("every node open", async () => (await closed.count()) === 0);
  const tree = await page.textContent("#why .tree");
  assert.ok(tree.includes("`open(a)` at 1, then `close(a)` at 3, and no `open(a)` at 3"), tree);
  assert.deepEqual(failed, []);

  await page.screenshot({ path: screenshot, fullPage: true });
  console.log(`ok: the page works; screenshot ${screenshot}`);
} finally {
  if (context) await context.close();
  child.kill();
  rmSync(profile, { recursive: true, force: true });
}
