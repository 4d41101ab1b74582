// A scripted VS Code session for real: code-server (VS Code 1.100) with the Tether extension, driven in
// headless Chromium by playwright-core. It opens a Python file, runs "Tether: Select…", moves the cursor into
// a prompt (playground), previews a replacement and accepts it with Tab, then writes what it saw to $OUT.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';

import { actions } from './actions.mjs';

const require = createRequire(path.join(process.env.E2E_CACHE, 'package.json'));
const { chromium } = require('playwright-core');

const workspace = process.env.WORKSPACE;
const out = { timings: {} };
const started = Date.now();
const mark = (what) => { out.timings[what] = Date.now() - started; };
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tether-vscode-'));

function freePort() {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function until(what, check, timeoutMs = 30000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = await check();
    if (value) return value;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

// The extension as a user gets it: the built .vsix, installed by code-server itself.
const exts = path.join(tmp, 'extensions');
const installed = spawnSync(process.env.CODE_SERVER, ['--install-extension', process.env.VSIX, '--extensions-dir', exts], {
  encoding: 'utf8', env: { ...process.env, XDG_CONFIG_HOME: path.join(tmp, 'config') }, timeout: 120000,
});
if (installed.status !== 0) throw new Error(`installing ${process.env.VSIX} failed: ${installed.stdout}${installed.stderr}`);
const userData = path.join(tmp, 'user-data');
fs.mkdirSync(path.join(userData, 'User'), { recursive: true });
fs.writeFileSync(path.join(userData, 'User', 'settings.json'), JSON.stringify({
  'workbench.startupEditor': 'none',
  'security.workspace.trust.enabled': false,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'extensions.autoCheckUpdates': false,
  'workbench.enableExperiments': false,
  'editor.inlineSuggest.enabled': true,
  ...(process.env.SERVER_CMD ? { // the install scenario gives none: the extension finds (or installs) the server
    'tether.server.path': JSON.parse(process.env.SERVER_CMD)[0],
    'tether.server.args': JSON.parse(process.env.SERVER_CMD).slice(1),
  } : {}),
  ...flatten('tether', JSON.parse(process.env.TETHER_SETTINGS || '{}')),
}));

// {inference: {endpoint: x}} -> {'tether.inference.endpoint': x}: one typed VS Code setting per server setting
function flatten(prefix, value) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { [prefix]: value };
  return Object.assign({}, ...Object.entries(value).map(([k, v]) => flatten(`${prefix}.${k}`, v)));
}

const port = await freePort();
const codeServer = spawn(process.env.CODE_SERVER, [
  '--auth', 'none', '--bind-addr', `127.0.0.1:${port}`, '--disable-telemetry', '--disable-update-check',
  '--disable-workspace-trust', '--user-data-dir', userData, '--extensions-dir', exts, workspace,
], { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, XDG_CONFIG_HOME: path.join(tmp, 'config') } });
let serverLog = '';
codeServer.stdout.on('data', (d) => { serverLog += d; });
codeServer.stderr.on('data', (d) => { serverLog += d; });

let browser;
let page;
try {
  await until('code-server', async () => {
    try { return (await fetch(`http://127.0.0.1:${port}/healthz`)).ok; } catch { return false; }
  }, 60000);
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium', headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  });
  page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  const statusText = async () => (await page.locator('#workbench\\.parts\\.statusbar').innerText()).replace(/\s+/g, ' ');

  mark('workbench');
  // open calc.py from the Explorer
  await until('calc.py in the explorer', async () => (await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'calc.py' }).count()) > 0, 60000);
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'calc.py' }).first().click();
  await until('the editor', async () => (await page.locator('.monaco-editor .view-lines').count()) > 0);
  out.activated = await until('the Tether status item', async () => {
    const s = await statusText();
    return s.includes('Tether:') ? s : false;
  }, 60000);

  const command = async (title, input) => {
    await page.keyboard.press('F1'); // the editor keeps the focus (a click would move the cursor)
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type(title);
    // the list filtered down to the command (not a fixed pause: commands are run a few dozen times)
    const focused = page.locator('.quick-input-widget .quick-input-list .monaco-list-row.focused');
    await until(`${title} in the palette`, async () => (await focused.innerText({ timeout: 200 }).catch(() => '')).includes(title), 3000).catch(() => undefined);
    await page.keyboard.press('Enter');
    if (input !== undefined) {
      // the command's input box: the palette closed and an empty box without a list opened
      await until('the input box', async () => (await page.locator('.quick-input-widget').isVisible()) &&
        (await page.locator('.quick-input-widget .quick-input-list .monaco-list-row').count()) === 0 &&
        (await page.locator('.quick-input-widget input').inputValue().catch(() => 'x')) === '', 3000).catch(() => undefined);
      await page.keyboard.insertText(input); // at once: a long completion typed key by key takes seconds
      await page.keyboard.press('Enter');
    }
  };

  // the cursor put somewhere by Go to Line, checked in the status bar (a key pressed while the workbench moves
  // focus can be lost)
  const goTo = async (where) => {
    const [line, col] = where.split(':');
    for (let attempt = 0; attempt < 4; attempt++) { // until the status bar says the cursor is there
      await page.keyboard.press('Control+1'); // the first editor group (the panel may have the focus)
      await page.waitForTimeout(200);
      await page.keyboard.press('Control+G');
      await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
      await page.waitForTimeout(200);
      await page.keyboard.type(where);
      await page.keyboard.press('Enter');
      const there = await until(`the cursor at ${where}`, async () => (await statusText()).includes(`Ln ${line}, Col ${col}`), 3000).catch(() => false);
      if (there) return;
    }
    throw new Error(`could not put the cursor at ${where}`);
  };

  scenario: {
  if (process.env.SCENARIO === 'install') {
    // no server anywhere: the notification offers to install the wheel shipped in the .vsix; then it works
    const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'language server was not found' });
    out.notFound = await until('the not-found notification', async () => ((await toast.count()) > 0 ? (await toast.first().innerText()).replace(/\s+/g, ' ') : false), 60000);
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-install-offer.png') });
    const toasts = async () => (await page.locator('.notifications-toasts').innerText().catch(() => '')).replace(/\s+/g, ' ');
    for (let attempt = 0; attempt < 3 && !out.installing; attempt++) { // a click while the toast slides in can miss
      await toast.first().locator('.monaco-button', { hasText: 'Install Tether' }).click().catch(() => undefined);
      out.installing = await until('the installation progress', async () => {
        const t = await toasts();
        return t.includes('installing the language server') || /Tether: (ready|no prompt)/.test(await statusText()) ? 'started' : false;
      }, 10000).catch(() => undefined);
    }
    // running: "ready", or already the playground's word for the cursor ("no prompt"), which follows at once
    out.installed = await until('the installed server running', async () => (/Tether: (ready|no prompt)/.test(await statusText()) ? 'ready' : false), 150000);
    await page.keyboard.press('Control+G');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type('1:25');
    await page.keyboard.press('Enter');
    out.works = await until('the prompt under the cursor', async () => ((await statusText()).includes('Tether: SYSTEM_PROMPT') ? 'SYSTEM_PROMPT' : false), 30000);
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-installed.png') });
    break scenario;
  }

  if (process.env.SCENARIO === 'actions') {
    await actions({ page, out, workspace, command, goTo, statusText, until });
    break scenario;
  }

  if (process.env.SCENARIO === 'replacement') {
    // a method rewritten from a line opened above it, from its separator, and from a line with no
    // indentation in the class body (Ctrl+Shift+Enter); each file saved after Tab, as the user leaves it
    const open = async (name) => {
      await page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first().click();
      await until(`${name} in the editor`, async () => (await page.locator('.tab.active', { hasText: name }).count()) > 0);
      await page.waitForTimeout(300);
    };
    // saved until the file on disk passes `done` (an edit applied after a save is saved by the next one)
    const saved = (name, done) => until(`${name} saved`, async () => {
      await page.keyboard.press('Control+S');
      await page.waitForTimeout(300);
      const text = fs.readFileSync(path.join(workspace, name), 'utf8');
      return done(text) ? text : false;
    });
    const pending = () => until('the replacement preview', async () => (await statusText()).includes('replacement pending'), 8000);
    const accept = async (name) => {
      await page.keyboard.press('Tab');
      await until('the preview gone', async () => !(await statusText()).includes('replacement pending'), 5000);
      return saved(name, (text) => text.includes('return 3'));
    };
    // the status bar's cursor position
    const cursorAt = async () => (await statusText()).match(/Ln \d+, Col \d+/)?.[0];
    // the position the keys lead to, read once the status bar shows it (it moves with each key typed); after
    // 10 s, the last one shown, which the test then reports
    const cursorReaches = async (expected) => {
      let now;
      for (const end = Date.now() + 10000; Date.now() < end; await page.waitForTimeout(100)) {
        now = await cursorAt();
        if (now === expected) break;
      }
      return now;
    };
    const original = fs.readFileSync(path.join(workspace, 'opened.py'), 'utf8');
    const toasts = async () => (await page.locator('.notifications-toasts').innerText().catch(() => '')).replace(/\s+/g, ' ');
    // a line opened above the last method (Enter at the start of its `def` line, then up), indented by the user
    await open('opened.py');
    await goTo('5:1');
    await page.keyboard.press('Enter');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.type('    ');
    out.openedCursor = await cursorReaches('Ln 5, Col 5');
    await command('Tether: Preview Replacement…', process.env.SIDE);
    await pending();
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-opened.png') });
    out.opened = await accept('opened.py');
    // the cursor on the blank line that separates the two methods, spaces typed on it
    await open('separator.py');
    await goTo('4:1');
    await page.keyboard.type('    ');
    await command('Tether: Preview Replacement…', process.env.SIDE);
    await pending();
    out.separator = await accept('separator.py');
    // a line with no indentation in the class body: Ctrl+Shift+Enter on the method's `def` line; the model's
    // answer, its `def` at column 0, is offered through inline completion
    await open('noindent.py');
    await goTo('5:5');
    await page.keyboard.press('Control+Shift+Enter');
    out.noIndentCursor = await cursorReaches('Ln 5, Col 1');
    for (let attempt = 0; attempt < 4 && !out.noIndentPreview; attempt++) {
      await command('Trigger Inline Suggestion');
      out.noIndentPreview = await pending().then(() => 'pending').catch(() => undefined);
    }
    if (!out.noIndentPreview) throw new Error('no replacement preview after 4 inline suggestion requests');
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-noindent.png') });
    out.noIndent = await accept('noindent.py');
    // what fits at neither column: a warning, nothing offered, the file as the user left it
    await open('broken.py');
    await goTo('5:5');
    await page.keyboard.press('Control+Shift+Enter');
    await until('the new line', async () => (await statusText()).includes('Ln 5, Col 1'));
    await command('Tether: Preview Replacement…', process.env.BROKEN);
    out.warning = await until('the warning', async () => {
      const t = await toasts();
      return t.includes('not offered') ? t : false;
    });
    await page.waitForTimeout(500); // an inline suggestion, if one were offered, shows within this
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-warning.png') });
    out.ghost = await page.locator('.ghost-text-decoration, .ghost-text').count();
    await page.keyboard.press('Tab');
    out.broken = await saved('broken.py', (text) => text !== original);
    break scenario;
  }

  // a structural selection: the name of every function
  await command('Tether: Select (a chain of selectors)…', 'selectFunctions selectName');
  // the chain's last step: the first step's selection (the whole function) shows for a moment before it
  let chainSeen;
  out.selection = await until('the selection', async () => {
    const s = await statusText();
    const m = s.match(/Ln (\d+), Col (\d+) \((\d+) selected\)/);
    chainSeen = m ? { line: Number(m[1]), col: Number(m[2]), selected: Number(m[3]) } : chainSeen;
    return chainSeen && chainSeen.line === 4 ? chainSeen : false;
  }, 15000).catch(() => chainSeen);

  // the playground: the cursor inside SYSTEM_PROMPT
  await page.keyboard.press('Control+G');
  await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
  await page.keyboard.type('1:25');
  await page.keyboard.press('Enter');
  out.playground = await until('the prompt in the status bar', async () => {
    const s = await statusText();
    return s.includes('Tether: SYSTEM_PROMPT') ? 'SYSTEM_PROMPT' : false;
  });

  mark('selection+playground status');
  // a replacement preview on the blank last line, accepted with Tab
  await page.keyboard.press('Control+End');
  await command('Tether: Preview Replacement…', process.env.LONGER);
  out.preview = await until('the analysis', async () => {
    const s = await statusText();
    const m = s.match(/Tether: (replace|insert) \(([^)]*)\)/);
    return m ? `${m[1]}: ${m[2]}` : false;
  });
  out.struck = await page.locator('.view-overlays, .view-lines').locator('[class*="ced-"]').count();
  // the new code is drawn as one image beside the struck unit: read its lines back from the page's styles
  out.previewLines = await until('the preview image', () => page.evaluate(() => {
    for (const sheet of document.styleSheets) {
      let rules;
      try { rules = sheet.cssRules; } catch { continue; }
      for (const rule of rules) {
        const m = rule.cssText.match(/data:image\/svg\+xml;base64,([A-Za-z0-9+/=]+)/);
        if (!m) continue;
        const svg = new TextDecoder().decode(Uint8Array.from(atob(m[1]), (c) => c.charCodeAt(0)));
        if (!svg.includes('xml:space="preserve"')) continue; // the editor's own images (squiggles)
        return [...new DOMParser().parseFromString(svg, 'image/svg+xml').querySelectorAll('text')].map((t) => t.textContent);
      }
    }
    return false;
  }));
  // where the image is, against the editor's text area and the struck lines: it must be all in view and cover none
  const previewBox = () => until('the preview image laid out', () => page.evaluate(() => {
    const span = [...document.querySelectorAll('.monaco-editor .view-line span')].find((s) => getComputedStyle(s, '::after').content.includes('svg+xml'));
    if (!span) return false;
    const after = getComputedStyle(span, '::after');
    const svg = decodeURIComponent(escape(atob(after.content.match(/base64,([A-Za-z0-9+/=]+)/)[1])));
    const [w, h] = [Number(svg.match(/width="(\d+)"/)[1]), Number(svg.match(/height="(\d+)"/)[1])];
    const line = span.parentElement.getBoundingClientRect(); // the line's box: the image's left: 0; top: 0
    const editor = span.closest('.monaco-editor');
    const area = editor.querySelector('.monaco-scrollable-element.editor-scrollable').getBoundingClientRect();
    const minimap = editor.querySelector('.minimap')?.getBoundingClientRect();
    const right = minimap && minimap.width ? Math.min(area.right, minimap.left) : area.right;
    const struck = [...editor.querySelectorAll('.view-line')].filter((l) => [...l.querySelectorAll('span')].some((x) => getComputedStyle(x).textDecorationLine.includes('line-through')));
    const left = line.left + parseFloat(after.marginLeft);
    const top = line.top + parseFloat(after.marginTop);
    return {
      image: [left, top, left + w, top + h].map(Math.round),
      area: [area.left, area.top, right, area.bottom].map(Math.round),
      struckBottom: Math.round(Math.max(...struck.map((l) => l.getBoundingClientRect().bottom))),
      struckLines: struck.length,
    };
  }));
  out.previewBox = await previewBox();
  out.pendingShown = (await statusText()).includes('replacement pending');
  await page.screenshot({ path: process.env.SHOT });
  // the same in a second editor group (half as wide): Escape, split, preview again; Tab accepts there
  await page.keyboard.press('Escape');
  // the status bar says a replacement is pending only while one is
  const pendingGone = async () => (await until('the pending status gone', async () => !(await statusText()).includes('replacement pending'), 5000).catch(() => false)) ? 'gone' : 'stuck';
  out.pendingAfterEscape = await pendingGone();
  await page.keyboard.press('Control+\\');
  await until('two editor groups', async () => (await page.locator('.editor-group-container').count()) === 2);
  await page.keyboard.press('Control+End');
  await command('Tether: Preview Replacement…', process.env.LONGER);
  out.previewBoxSplit = await previewBox();
  await page.screenshot({ path: process.env.SHOT.replace('.png', '-split.png') });
  await page.keyboard.press('Control+Home'); // Tab accepts wherever the cursor is
  await page.keyboard.press('Tab');
  out.pendingAfterTab = await pendingGone();
  await page.keyboard.press('Control+S');
  await page.keyboard.press('Control+W'); // the second group's editor: the first still shows calc.py
  await until('one editor group', async () => (await page.locator('.editor-group-container').count()) === 1);
  out.saved = await until('the saved file', async () => {
    const text = fs.readFileSync(path.join(workspace, 'calc.py'), 'utf8');
    return text.includes('result += item') ? text : false;
  });

  mark('preview');
  // an AI completion (the fake model) on the blank line under `shell:`: a replacement, previewed, Tab
  if (fs.existsSync(path.join(workspace, 'site.yml'))) {
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'site.yml' }).first().click();
    await until('site.yml in the editor', async () => (await page.locator('.tab.active', { hasText: 'site.yml' }).count()) > 0);
    await page.waitForTimeout(500);
    await page.keyboard.press('Control+G');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type('6:1');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
    // VS Code may cancel a request it made while the palette closed: ask again until the preview shows
    for (let attempt = 0; attempt < 4 && !out.inline; attempt++) {
      await command('Trigger Inline Suggestion');
      out.inline = await until('the replacement preview', async () => {
        const s = await statusText();
        return s.includes('replacement pending') ? 'pending' : false;
      }, 8000).catch(() => undefined);
    }
    if (!out.inline) throw new Error('no replacement preview after 4 inline suggestion requests');
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-inline.png') });
    await page.keyboard.press('Tab');
    out.pendingAfterInline = await pendingGone();
    await page.keyboard.press('Control+S');
    out.yaml = await until('the saved yaml', async () => {
      const text = fs.readFileSync(path.join(workspace, 'site.yml'), 'utf8');
      return text.includes('oc get nodes') ? text : false;
    });
  }

  mark('inline');
  // an inline task: the @run line of task.py, run from the palette; the model's change streams into the open
  // document through applyEdit, and VS Code reports each applied edit back in its own way
  if (fs.existsSync(path.join(workspace, 'task.py'))) {
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'task.py' }).first().click();
    await until('task.py in the editor', async () => (await page.locator('.tab.active', { hasText: 'task.py' }).count()) > 0);
    await page.waitForTimeout(500);
    await page.keyboard.press('Control+G');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type(String(Number(process.env.TASK_LINE) + 1) + ':1');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
    const toasts = async () => (await page.locator('.notifications-toasts').innerText().catch(() => '')).replace(/\s+/g, ' ');
    // first run, with Ctrl+Y on the task line: the progress notification shows, the lines being written are
    // highlighted; Cancel undoes what was written
    await page.keyboard.press('Control+Y');
    out.taskProgress = await until('the progress notification', async () => {
      const t = await toasts();
      return t.includes('Tether: use sum() and add a helper') ? t : false;
    });
    const editorText = async () => (await page.locator('.monaco-editor .view-lines').first().innerText()).replace(/\u00a0/g, ' ');
    await until('some of the change written', async () => (await editorText()).includes('return sum(items)'));
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-task-running.png') });
    await page.locator('.notifications-toasts .notification-toast', { hasText: 'Tether: use sum()' }).locator('a.monaco-button, .monaco-button', { hasText: 'Cancel' }).first().click();
    out.taskCancelled = await until('the cancellation', async () => {
      const t = await toasts();
      return t.includes('Tether task cancelled') ? 'cancelled' : false;
    }, 30000);
    out.taskAfterCancel = await until('the change undone', async () => {
      const text = await editorText();
      return text.includes('return sum(items)') ? false : text;
    });
    // second run: to the end, reported per file, with the session log one click away
    await page.keyboard.press('Control+1');
    await page.keyboard.press('Control+G');
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type(String(Number(process.env.TASK_LINE) + 1) + ':1');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
    await page.keyboard.press('Control+Y');
    out.taskMessage = await until('the task result', async () => {
      const m = (await toasts()).match(/Tether task: (\S+: \w+)/);
      return m ? m[1].trim() : false;
    }, 60000);
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-task.png') });
    await page.locator('.notifications-toasts .notification-toast', { hasText: 'Tether task:' }).locator('.monaco-button', { hasText: 'Open Log' }).first().click();
    out.taskLog = await until('the session log', async () => ((await page.locator('.tab.active', { hasText: 'session.md' }).count()) > 0 ? 'session.md' : false));
    await page.locator('.tab', { hasText: 'task.py' }).first().click();
    // the task's change stays marked for review: Accept / Reject above it, and the whole task is one undo step
    const lenses = () => page.locator('.contentWidgets .codelens-decoration a');
    out.taskLenses = await until('the review CodeLens', async () => {
      const all = (await lenses().allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
      return all.some((t) => t.includes('Reject')) ? all : false;
    });
    out.taskReviewStatus = (await statusText()).match(/Tether task: \d+ changes? to review/)?.[0];
    await page.keyboard.press('Control+Z');
    out.taskUndone = await until('the task undone in one step', async () => {
      const text = await editorText();
      return text.includes('return sum(items)') ? false : text;
    });
    await page.keyboard.press('Control+Shift+Z');
    await until('the task redone, under review again', async () => (await editorText()).includes('return sum(items)') && (await lenses().filter({ hasText: 'Reject' }).count()) > 0);
    await lenses().filter({ hasText: 'Reject' }).first().click();
    out.taskRejected = await until('the change rejected', async () => {
      const text = await editorText();
      return text.includes('return sum(items)') ? false : text;
    });
    await page.keyboard.press('Control+Z');
    await until('the rejection undone, under review again', async () => (await editorText()).includes('return sum(items)') && (await statusText()).includes('1 change to review'));
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-task-review.png') });
    await lenses().filter({ hasText: 'Accept' }).first().click();
    out.taskAccepted = await until('the review over', async () => ((await statusText()).includes('to review') || (await lenses().filter({ hasText: 'Accept' }).count()) ? false : 'accepted'));
    await page.keyboard.press('Control+S');
    out.taskFile = await until('the saved task file', async () => {
      const text = fs.readFileSync(path.join(workspace, 'task.py'), 'utf8');
      return text.includes('return sum(items)') ? text : false;
    });
  }

  mark('task');
  // structural cursors kept across commands: methods, then the first of each class, then its name; typing over
  // the two selections renames both first methods at once
  if (fs.existsSync(path.join(workspace, 'shapes.py'))) {
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'shapes.py' }).first().click();
    await until('shapes.py in the editor', async () => (await page.locator('.tab.active', { hasText: 'shapes.py' }).count()) > 0);
    await page.waitForTimeout(500);
    await page.keyboard.press('Control+G'); // the editor gets the focus (the explorer had it)
    await page.waitForSelector('.quick-input-widget input', { state: 'visible' });
    await page.keyboard.type('1:1');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(300);
    // first a replacement of the method under the blank line that separates two methods: the line stays
    await goTo('4:1');
    await page.keyboard.type('    '); // where the editor's auto-indent puts the cursor
    await command('Tether: Preview Replacement…', process.env.GROW);
    await until('the preview of grow', async () => (await statusText()).includes('replacement pending'));
    await page.keyboard.press('Tab');
    await pendingGone();
    await goTo('1:1');
    const cursors = (n) => until(`${n} cursors`, async () => ((await statusText()).includes(`${n} cursors`) ? n : false));
    await command('Tether: Select: Methods');
    out.methods = await cursors(4);
    await command('Tether: Select: First');
    out.first = await cursors(2);
    await command('Tether: Select: Name');
    out.names = await until('the two names selected', async () => {
      const m = (await statusText()).match(/(\d+) selections \((\d+) characters selected\)/);
      return m && m[2] === '8' ? Number(m[1]) : false; // `area` and `side`
    });
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-selectors.png') });
    await page.keyboard.type('renamed');
    await page.waitForTimeout(300);
    await page.keyboard.press('Control+S');
    out.shapes = await until('the saved shapes.py', async () => {
      const text = fs.readFileSync(path.join(workspace, 'shapes.py'), 'utf8');
      return text.includes('renamed') ? text : false;
    });
    out.afterEdit = (await statusText()).includes('cursors') ? 'kept' : 'cleared'; // an edit ends the state
    await command('Tether: Select: Apply a Selector…');
    await page.waitForTimeout(300);
    await page.keyboard.type('selectNextSib');
    out.pick = await until('the selector list', async () => {
      const text = (await page.locator('.quick-input-widget').innerText()).replace(/\s+/g, ' ');
      return text.includes('selectNextSibling') ? text.slice(0, 300) : false;
    });
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-pick.png') });
    await page.keyboard.press('Escape');
    // selectAt from the list: its boxes say what they expect and start at the cursor; the status bar's Ln / Col
    // typed into them select what is there (`renamed` on line 10, not line 11)
    await goTo('10:9');
    await command('Tether: Select: Apply a Selector…');
    await page.waitForTimeout(300);
    await page.keyboard.type('selectAt');
    await until('selectAt in the list', async () => (await page.locator('.quick-input-widget .monaco-list-row.focused').innerText().catch(() => '')).includes('selectAt'));
    await page.keyboard.press('Enter');
    const box = async () => {
      const prompt = (await page.locator('.quick-input-widget .quick-input-message').innerText().catch(() => '')).replace(/\s+/g, ' ');
      return { prompt, value: await page.locator('.quick-input-widget input').inputValue().catch(() => '') };
    };
    out.selectAtLine = await until('the line box', async () => { const b = await box(); return b.prompt.includes('selectAt') ? b : false; });
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-selectat.png') });
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('10'); // as the status bar said: Ln 10, Col 9
    await page.keyboard.press('Enter');
    out.selectAtColumn = await until('the second box', async () => { const b = await box(); return b.prompt.includes('selectAt') && b.prompt !== out.selectAtLine.prompt ? b : false; });
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('9');
    await page.keyboard.press('Enter');
    out.selectAt = await until('the node at Ln 10, Col 9', async () => (await statusText()).match(/Ln \d+, Col \d+ \(\d+ selected\)/)?.[0], 10000).catch(async () => statusText());
    // Next Sibling after the last class finds nothing: the class stays selected and so does "1 cursor"; Previous
    // Sibling goes on from it
    await goTo('1:1');
    await command('Tether: Select: Classes');
    await cursors(2);
    await command('Tether: Select: Last');
    const lastClass = await until('the last class', async () => (await statusText()).match(/Ln \d+, Col \d+ \(\d+ selected\)/)?.[0]);
    await command('Tether: Select: Next Sibling');
    out.nothingMatched = await until('the nothing-matched message', async () => {
      const s = await statusText();
      return s.includes('nothing matched') ? s : false;
    }, 10000).catch(async () => statusText());
    out.nothingMatchedKept = { selection: (await statusText()).includes(lastClass), cursor: (await statusText()).includes('1 cursor') };
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-nothing-matched.png') });
    await command('Tether: Select: Previous Sibling');
    out.afterNothing = await until('the previous class', async () => {
      const m = (await statusText()).match(/Ln (\d+), Col \d+ \(\d+ selected\)/);
      return m && m[0] !== lastClass ? Number(m[1]) : false;
    }, 10000).catch(async () => statusText());
  }

  mark('shapes');
  // markers: one added on a selection, shown in the Tether Markers view, following an edit above it, with a gutter
  // icon, a hover and a CodeLens that opens it
  if (fs.existsSync(path.join(workspace, 'notes.py'))) {
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'notes.py' }).first().click();
    await until('notes.py in the editor', async () => (await page.locator('.tab.active', { hasText: 'notes.py' }).count()) > 0);
    for (let attempt = 0; attempt < 3 && !out.markerSelected; attempt++) {
      await goTo('1:1');
      for (let k = 0; k < 3; k++) await page.keyboard.press('Shift+ArrowDown');
      await page.keyboard.press('Shift+End');
      out.markerSelected = await until('lines 1-4 selected', async () => ((await statusText()).match(/Ln 4, Col 1 \(\d+ selected\)/) ? 'yes' : false), 3000).catch(() => undefined);
    }
    await command('Tether: Add Marker…');
    await page.waitForTimeout(400);
    await page.keyboard.type('question');
    await page.keyboard.press('Enter');
    await page.waitForTimeout(400);
    await page.keyboard.type(process.env.NOTE);
    await page.keyboard.press('Enter');
    await command('Tether: Show Markers');
    // the view has Tether's own place in the activity bar; its tooltip holds the whole note and a readable date
    const view = page.locator('#workbench\\.parts\\.sidebar');
    const viewText = async () => (await view.innerText().catch(() => '')).replace(/\s+/g, ' ');
    out.markerView = await until('the marker in the view', async () => {
      const t = await viewText();
      return t.includes('Why is the total rounded here?') && t.includes('lines 1–4') ? t : false;
    });
    out.markerContainer = (await view.locator('.composite.title').innerText()).replace(/\s+/g, ' ');
    // the row can be redrawn under a still pointer (the view refreshes as the marker is located), which drops a
    // pending tooltip: each try moves the pointer off the row and back, so the hover starts again
    const row = view.locator('.monaco-list-row', { hasText: 'Why is the total rounded here?' }).first();
    const tooltipText = async () => (await page.locator('.workbench-hover, .monaco-hover', { hasText: 'large orders' }).first().innerText({ timeout: 500 }).catch(() => '')).replace(/\s+/g, ' ');
    for (let attempt = 0; attempt < 5 && !out.markerTooltip; attempt++) {
      await page.mouse.move(0, 0);
      await row.hover();
      out.markerTooltip = await until('the tooltip', async () => (await tooltipText()) || false, 4000).catch(() => undefined);
    }
    if (!out.markerTooltip) throw new Error(`timed out waiting for the tooltip after 5 hovers; the view showed: ${await viewText()}`);
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-marker-view.png') });
    out.markerGutter = await until('the gutter icon', async () => (await page.locator('.monaco-editor .cgmr').count()) || false);
    await page.keyboard.press('Control+1');
    await page.keyboard.press('Control+Home');
    await page.keyboard.type('# a header line\n');
    out.markerMoved = await until('the marker moved in the view', async () => ((await viewText()).includes('lines 2–5') ? 'lines 2–5' : false));
    const lens = page.locator('.contentWidgets .codelens-decoration a', { hasText: 'Why is the total rounded here?' });
    await until('the CodeLens', async () => (await lens.count()) > 0);
    await lens.first().click();
    out.markerOpened = await until('the marker opened from its CodeLens', async () => {
      const title = await page.locator('.quick-input-widget .quick-input-title').innerText().catch(() => '');
      return title.includes('question: Why is the total rounded here?') ? title : false;
    });
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-marker-opened.png') });
    await page.keyboard.press('Escape');
    out.markerSelection = await until('the marker selected', async () => {
      const m = (await statusText()).match(/Ln (\d+), Col (\d+) \((\d+) selected\)/);
      return m ? Number(m[1]) : false;
    });
    await command('Show or Focus Hover');
    out.markerHover = await until('the hover', async () => {
      const t = (await page.locator('.monaco-hover', { hasText: 'Change kind' }).first().innerText().catch(() => '')).replace(/\s+/g, ' ');
      return t.includes('Why is the total rounded here?') && t.includes('Delete') ? t : false;
    });
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-marker-hover.png') });
    await page.keyboard.press('Escape');
    await page.keyboard.press('Control+S');
    await command('View: Show Explorer'); // back from Tether's view container
  }

  mark('markers');
  // the playground panel: follows the cursor, runs a prompt against the fake model with the answer streaming in,
  // keeps the run in its history, and restores the typed variable when the panel is opened again
  if (fs.existsSync(path.join(workspace, 'prompts.py'))) {
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'prompts.py' }).first().click();
    await until('prompts.py in the editor', async () => (await page.locator('.tab.active', { hasText: 'prompts.py' }).count()) > 0);
    await goTo('1:25');
    await command('Tether: Open Prompt Playground');
    const panel = () => page.frameLocator('iframe.webview.ready').frameLocator('#active-frame');
    const selected = async () => (await panel().locator('#selected .anchor').first().innerText({ timeout: 2000 }).catch(() => '')).trim();
    out.panelFirst = await until('the panel on TRANSLATE_PROMPT', async () => ((await selected()) === 'TRANSLATE_PROMPT' ? 'TRANSLATE_PROMPT' : false), 60000);
    // a variable's box grows with its text; the model's parameters are set in the panel
    const box = panel().locator('textarea[data-name="text"]');
    await box.fill('one\ntwo\nthree\nfour');
    out.panelBoxFits = await until('the box as tall as its four lines', () => box.evaluate((b) =>
      b.scrollHeight <= b.clientHeight + 1 && b.clientHeight >= 4 * parseFloat(getComputedStyle(b).lineHeight) ? 'fits' : false)).catch(() => 'clipped');
    await box.fill('Un café ☕');
    await panel().locator('#model input[data-name="temperature"]').fill('0.3');
    await panel().locator('#model input[data-name="maxTokens"]').fill('64');
    await panel().locator('#run').click();
    const partials = [];
    out.panelOutput = await until('the answer in the panel', async () => {
      const text = await panel().locator('#output').innerText().catch(() => '');
      if (text && !partials.includes(text)) partials.push(text);
      const done = (await panel().locator('#run-status').innerText().catch(() => '')).includes('fake-chat');
      return done ? text : false;
    }, 30000);
    out.panelPartials = partials;
    out.panelHistory = await panel().locator('#history li').count();
    out.panelRunLine = (await panel().locator('#history li .head').first().innerText()).replace(/\s+/g, ' ');
    // a second run, and the two side by side
    await panel().locator('#run').click();
    await until('the second run listed', async () => (await panel().locator('#history li').count()) === 2, 30000);
    await panel().locator('#history input[type=checkbox]').nth(0).check();
    await panel().locator('#history input[type=checkbox]').nth(1).check();
    out.panelCompare = await until('the comparison', async () => ((await panel().locator('#compare .column').count()) === 2 ? (await panel().locator('#compare').innerText()).replace(/\s+/g, ' ') : false));
    out.panelCompareMarked = await panel().locator('#compare .line.differs').allInnerTexts();
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-playground.png') });
    // a prompt clicked in the list is selected and the editor's cursor goes into it
    await panel().locator('#prompts li', { hasText: 'GREETING_PROMPT' }).click();
    out.panelSecond = await until('the clicked prompt selected', async () => ((await selected()) === 'GREETING_PROMPT' ? 'GREETING_PROMPT' : false));
    out.panelClickedCursor = await until('the cursor in the prompt', async () => (await statusText()).match(/Ln (\d+), Col \d+/)?.[1] === '2' ? 'line 2' : false).catch(async () => statusText());
    await page.locator('.tab', { hasText: 'Prompt Playground' }).locator('.codicon-close').click({ force: true });
    await until('the panel closed', async () => (await page.locator('.tab', { hasText: 'Prompt Playground' }).count()) === 0);
    await goTo('1:25');
    await command('Tether: Open Prompt Playground');
    out.panelRestored = await until('the variable restored', async () => {
      const value = await panel().locator('textarea[data-name="text"]').inputValue({ timeout: 2000 }).catch(() => '');
      return value || false;
    });
    out.panelHistoryAfterReopen = await panel().locator('#history li').count();
    out.panelTemperature = await panel().locator('#model input[data-name="temperature"]').inputValue();
    // back on the prompt: its last answer is in the output area, with how it ran
    const shown = (id) => panel().locator(id).evaluate((e) => (e.hidden ? null : e.innerText)).catch(() => null);
    out.panelOutputAfterReopen = await until('the last answer shown', () => shown('#output'), 10000).catch(() => null);
    out.panelStatusAfterReopen = await shown('#run-status');
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-playground-reopened.png') });
    // a run that streams long; meanwhile the user goes to another prompt and back: its answer and its Cancel
    // stay with it
    const buttons = () => panel().locator('#selected').evaluate(() => ({ run: !document.getElementById('run').disabled, cancel: !document.getElementById('cancel').disabled }));
    await panel().locator('#run').click();
    await until('the long answer streaming', async () => ((await shown('#output')) || '').includes('Une longue'), 30000);
    await panel().locator('#prompts li', { hasText: 'GREETING_PROMPT' }).click();
    await until('the other prompt selected', async () => (await selected()) === 'GREETING_PROMPT');
    // a piece of the answer arrives while the other prompt is on view (the page's own record of the run)
    const streamed = () => panel().locator('body').evaluate(() => (typeof live === 'object' && live ? live.text.length : -1)).catch(() => -1);
    const sofar = await streamed();
    await until('a piece arriving meanwhile', async () => (await streamed()) > sofar, 10000).catch(() => undefined);
    out.panelWhileOtherRuns = { output: await shown('#output'), status: await shown('#run-status'), buttons: await buttons() };
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-playground-other-prompt.png') });
    await panel().locator('#prompts li', { hasText: 'TRANSLATE_PROMPT' }).click();
    await until('the running prompt selected again', async () => (await selected()) === 'TRANSLATE_PROMPT');
    const before = (await shown('#output')) || '';
    out.panelBackWhileRunning = {
      growing: await until('more of the answer', async () => ((await shown('#output')) || '').length > before.length, 10000).then(() => true).catch(() => false),
      output: await shown('#output'),
      status: await shown('#run-status'),
      buttons: await buttons(),
    };
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-playground-back.png') });
    await panel().locator('#cancel').click();
    out.panelCancelled = await until('the run cancelled', async () => ((await panel().locator('#error').innerText().catch(() => '')) === 'Cancelled.' ? 'Cancelled.' : false), 10000).catch(async () => panel().locator('#error').innerText());
    // a file with no prompts: nothing of the previous file's output and runs stays
    await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'notes.py' }).first().click();
    out.panelNoPrompts = await until('the panel on a file without prompts', async () => {
      const text = (await panel().locator('body').innerText()).replace(/\s+/g, ' ');
      return text.includes('No prompts in this file') ? text : false;
    });
    await page.screenshot({ path: process.env.SHOT.replace('.png', '-playground-noprompts.png') });
  }
  } // scenario
  mark('panel');
  // the Tether output channel as VS Code keeps it on disk: every line of the server's log, once
  await command('Tether: Show Log');
  await until('the output panel', async () => (await page.locator('.part.panel .monaco-editor .view-lines').count()) > 0, 5000).catch(() => undefined);
  await page.screenshot({ path: process.env.SHOT.replace('.png', '-output.png') });
  const logs = path.join(userData, 'logs');
  const channelFiles = [];
  const walk = (dir) => { for (const e of fs.readdirSync(dir, { withFileTypes: true })) { const p = path.join(dir, e.name); if (e.isDirectory()) walk(p); else if (/-Tether\.log$/.test(e.name)) channelFiles.push(p); } };
  if (fs.existsSync(logs)) walk(logs);
  out.outputChannel = channelFiles.map((f) => fs.readFileSync(f, 'utf8')).join('\n');
  mark('output');
} catch (err) {
  out.error = String(err && err.stack || err);
  if (page) await page.screenshot({ path: process.env.SHOT.replace('.png', '-failed.png') }).catch(() => undefined);
  out.serverLog = serverLog.slice(-3000);
} finally {
  fs.writeFileSync(process.env.OUT, JSON.stringify(out, null, 2));
  if (browser) await browser.close();
  try { process.kill(-codeServer.pid, 'SIGKILL'); } catch {}
  fs.rmSync(tmp, { recursive: true, force: true });
}
process.exit(0);
