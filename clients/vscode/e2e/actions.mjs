// The structural actions scenario of run.mjs (SCENARIO=actions), on $ACTIONS_FILE: a function selected with a
// Tether selector and removed, one Ctrl+Z back; Move Down from the palette and from its keys; a refusal; the
// lightbulb's Move up / Move down; the mark, a move after it and its undo; a wrap's placeholder typed over; an
// insert's empty spot typed in. Each step's file is read from disk after a save; screenshots of each step.
import fs from 'node:fs';
import path from 'node:path';

export async function actions({ page, out, workspace, command, goTo, statusText, until }) {
  const name = process.env.ACTIONS_FILE;
  const file = path.join(workspace, name);
  const shot = (what) => page.screenshot({ path: process.env.SHOT.replace('.png', `-${what}.png`) });
  const disk = () => fs.readFileSync(file, 'utf8');
  // saved until the file on disk is not `before` any more (an edit applied after a save is saved by the next one)
  const savedAfter = (before, what) => until(`${what}: the file saved`, async () => {
    await page.keyboard.press('Control+S');
    const text = disk();
    return text !== before ? text : false;
  }, 20000);
  // the 1-based line of the first line that starts with `prefix`, in the saved file
  const lineOf = (prefix) => disk().split('\n').findIndex((l) => l.startsWith(prefix)) + 1;
  const selectedCount = () => until('a selection', async () => Number((await statusText()).match(/\((\d+) selected\)/)?.[1] ?? 0) || false, 10000).catch(() => 0);
  const toasts = async () => (await page.locator('.notifications-toasts').innerText().catch(() => '')).replace(/\s+/g, ' ');
  const clearToasts = async () => {
    await command('Notifications: Clear All Notifications');
    await until('the toasts gone', async () => !(await toasts()).includes('Tether:'), 5000).catch(() => undefined);
  };

  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first().click();
  await until(`${name} in the editor`, async () => (await page.locator('.tab.active', { hasText: name }).count()) > 0);
  const original = disk();

  // a function picked with Tether's selectors, removed with its blank lines; one Ctrl+Z gives the text back
  await command('Tether: Select (a chain of selectors)…', 'selectFunctions selectNth:1');
  out.selected = await until('one cursor', async () => ((await statusText()).includes('1 cursor') ? await statusText() : false), 15000);
  await shot('selected');
  await command('Tether: Action: Remove');
  out.removed = await savedAfter(original, 'remove');
  out.removedCursor = (await statusText()).match(/Ln \d+, Col \d+/)?.[0];
  out.cursorsAfterRemove = (await statusText()).includes('cursor') ? 'kept' : 'gone';
  await shot('removed');
  await page.keyboard.press('Control+Z');
  out.undone = await savedAfter(out.removed, 'undo');

  // Move Down from the palette, on the function at the cursor: it is selected where it went
  await goTo(`${lineOf('def prix')}:5`);
  await command('Tether: Action: Move Down');
  out.movedDown = await savedAfter(out.undone, 'moveDown');
  out.movedDownSelected = await selectedCount();
  out.movedDownLine = Number((await statusText()).match(/Ln (\d+)/)?.[1]);
  await shot('moved-down');
  // again with its keys (Ctrl+Alt+A, Down): the selection it left is the target
  await page.keyboard.press('Control+Alt+A');
  await page.keyboard.press('ArrowDown');
  out.movedDownByKeys = await savedAfter(out.movedDown, 'moveDown by keys');
  // the last function cannot go further down: one warning, the text stays
  await page.keyboard.press('Control+Alt+A');
  await page.keyboard.press('ArrowDown');
  out.refusal = await until('the refusal', async () => {
    const t = await toasts();
    return t.includes('moveDown refused') ? t : false;
  }, 15000);
  // its toast done sliding in, for the picture
  await page.locator('.notification-toast.notification-fade-in-done', { hasText: 'moveDown refused' }).waitFor({ timeout: 5000 }).catch(() => undefined);
  await shot('refusal');
  // nothing changed: the document is still as saved (its tab is not dirty), so the file is its text
  out.dirtyAfterRefusal = await page.locator('.tab.active.dirty').count();
  out.afterRefusal = disk();
  await clearToasts();

  // the lightbulb on a function's line offers Move up and Move down (textDocument/codeAction); Move up applies
  await goTo(`${lineOf('def emoji')}:5`);
  const bulb = page.locator('.contentWidgets .lightBulbWidget, .lightBulbWidget');
  out.lightbulb = await until('the lightbulb', async () => ((await bulb.first().isVisible().catch(() => false)) ? 'shown' : false), 20000).catch(() => 'none');
  await shot('lightbulb');
  if (out.lightbulb === 'shown') await bulb.first().click();
  else await page.keyboard.press('Control+.');
  const menu = page.locator('.action-widget');
  out.codeActions = await until('the code action menu', async () => {
    const text = (await menu.innerText().catch(() => '')).replace(/\s+/g, ' ');
    return text.includes('Move up') && text.includes('Move down') ? text : false;
  }, 15000);
  await shot('lightbulb-menu');
  // chosen with the keys (a click is taken by the pointer block VS Code lays over the page under a menu)
  const focused = async () => (await menu.locator('.monaco-list-row.focused').getAttribute('aria-label').catch(() => '')) ?? '';
  for (let k = 0; k < 4 && (await focused()) !== 'Move up'; k++) await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  out.movedUpByCodeAction = await savedAfter(out.afterRefusal, 'Move up from the lightbulb');

  // the mark: the function at the cursor marked, then another moved after it; one Ctrl+Z puts it back
  await goTo(`${lineOf('def emoji')}:5`);
  await command('Tether: Action: Mark (the destination of Move, Bring and Swap)');
  out.markLabel = await until('the mark label', () => page.evaluate(() => {
    for (const span of document.querySelectorAll('.monaco-editor .view-line span')) {
      for (const pseudo of ['::after', '::before']) {
        const content = getComputedStyle(span, pseudo).content;
        if (content && content.includes('◆ mark')) return { content, line: span.closest('.view-line').innerText };
      }
      if (span.innerText === '◆ mark') return { content: span.innerText, line: span.closest('.view-line').innerText };
    }
    return false;
  }), 10000).catch(() => null);
  await shot('mark');
  await goTo(`${lineOf('def prix')}:5`);
  await command('Tether: Action: Move After the Mark');
  out.movedAfterMark = await savedAfter(out.movedUpByCodeAction, 'move after the mark');
  out.markAfterMove = await page.evaluate(() => document.querySelector('.monaco-editor .view-lines').innerText.includes('◆ mark'));
  await shot('moved-after-mark');
  await page.keyboard.press('Control+Z');
  out.moveUndone = await savedAfter(out.movedAfterMark, 'undo the move');

  // wrap in try: the placeholder (Exception) is selected; typing replaces it
  await goTo(`${lineOf('    return url')}:5`);
  await command('Tether: Action: Wrap in try / with / if / a Call…');
  // the wrappers' quick pick (not the palette still closing): its placeholder says so
  await page.locator('.quick-input-widget input[placeholder*="wrap the target"]').waitFor({ timeout: 10000 });
  const rows = page.locator('.quick-input-widget .quick-input-list .monaco-list-row');
  out.wrappers = await until('the wrappers', async () => ((await rows.count()) === 4 ? (await rows.allInnerTexts()).map((t) => t.replace(/\s+/g, ' ')) : false), 10000);
  await page.keyboard.type('try');
  await page.keyboard.press('Enter');
  out.wrapSelected = await selectedCount();
  await shot('wrapped');
  await page.keyboard.type('ValueError');
  out.wrapped = await savedAfter(out.moveUndone, 'wrap');

  // insert after a parameter: the cursor in the new empty spot, typed in
  await goTo(`${lineOf('def prix')}:10`);
  const cursor = async () => (await statusText()).match(/Ln \d+, Col \d+/)?.[0];
  const before = await cursor();
  await command('Tether: Action: Insert (an empty element or line after it)');
  out.insertCursor = await until('the cursor in the new spot', async () => {
    const now = await cursor();
    return now !== before ? now : false;
  }, 10000);
  await page.keyboard.type('marge');
  out.inserted = await savedAfter(out.wrapped, 'insert');
  await shot('inserted');

  // into another file: the statement of calc.py marked, the first function moved after it; calc.py is then the
  // active editor with the function selected; one Ctrl+Z there undoes calc.py's part only (one step per file)
  const other = path.join(workspace, 'calc.py');
  const calc = fs.readFileSync(other, 'utf8');
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'calc.py' }).first().click();
  await until('calc.py in the editor', async () => (await page.locator('.tab.active', { hasText: 'calc.py' }).count()) > 0);
  await goTo('1:1');
  await command('Tether: Action: Mark (the destination of Move, Bring and Swap)');
  await page.locator('.explorer-folders-view .monaco-list-row', { hasText: name }).first().click();
  await until(`${name} in the editor`, async () => (await page.locator('.tab.active', { hasText: name }).count()) > 0);
  await goTo(`${lineOf('def emoji')}:5`);
  await command('Tether: Action: Move After the Mark');
  out.crossActive = await until('calc.py active', async () => ((await page.locator('.tab.active', { hasText: 'calc.py' }).count()) > 0 ? 'calc.py' : false), 10000).catch(() => 'not switched');
  out.crossSelected = await selectedCount();
  await shot('moved-into-other-file');
  const both = () => [disk(), fs.readFileSync(other, 'utf8')];
  const savedAll = (before, what) => until(`${what}: both files saved`, async () => {
    await command('File: Save All');
    const now = both();
    return now[0] !== before[0] && now[1] !== before[1] ? now : false;
  }, 30000);
  out.crossMoved = await savedAll([out.inserted, calc], 'move into calc.py');
  await page.keyboard.press('Control+Z'); // in calc.py
  out.crossUndone = await until('calc.py undone and saved', async () => {
    await command('File: Save All');
    const now = both();
    return now[1] === calc ? now : false;
  }, 30000).catch(() => both());
}
