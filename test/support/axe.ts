import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { expect } from 'vitest';
import { screenshotPath } from './browser';

const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeFinding {
  id: string;
  impact: string;
  help: string;
  targets: string[];
  /** axe's own words for the first element at fault (for contrast: the two colours and the ratio). */
  summary: string;
}

interface AxeResult {
  violations: Array<{ id: string; impact: string | null; help: string; nodes: Array<{ target: unknown[]; failureSummary?: string }> }>;
}

/**
 * The rules whose outcome a theme can change. The theme switch only changes colours (data-theme
 * picks the CSS tokens), so the page's structure, names and roles are the same in both themes and
 * the second theme needs only these.
 */
const COLOUR_RULES = ['color-contrast', 'link-in-text-block'];

/**
 * Runs axe-core (WCAG 2.x A/AA rules, or only the colour rules) on the page as it is now and returns the violations of
 * impact serious or critical, each with the selectors of the elements at fault. The browser
 * context must bypass the CSP (openBrowser does), or the injected script is refused. `within`
 * limits the run to some elements: a state of a page already checked whole (a panel opened, a bar
 * shown) is checked where it changed the page.
 */
export async function seriousA11yFindings(page: Page, scope: 'all' | 'colours' = 'all', within?: string[]): Promise<AxeFinding[]> {
  const loaded = await page.evaluate(() => typeof (window as unknown as { axe?: unknown }).axe !== 'undefined');
  if (!loaded) await page.addScriptTag({ content: AXE_SOURCE });
  const runOnly = scope === 'all' ? { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } : { type: 'rule', values: COLOUR_RULES };
  const result = (await page.evaluate(
    ({ only, within }) =>
      (window as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<unknown> } }).axe.run(within ? { include: within.map((selector) => [selector]) } : document, {
        runOnly: only,
        // Only violations are read: axe then skips listing every node that passed, 2-3x faster on a grid.
        resultTypes: ['violations'],
      }),
    { only: runOnly, within: within ?? null },
  )) as AxeResult;
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({
      id: v.id,
      impact: v.impact ?? '',
      help: v.help,
      targets: v.nodes.map((n) => n.target.map(String).join(' ')),
      summary: (v.nodes[0]?.failureSummary ?? '').replace(/\s+/g, ' ').trim(),
    }));
}

/** One line per finding, for an assertion message a person can act on. */
export function describeFindings(findings: AxeFinding[]): string {
  return findings.map((f) => `${f.impact} ${f.id}: ${f.help} (${f.targets.slice(0, 5).join(', ')}): ${f.summary}`).join('\n');
}

/** The two sizes every page is looked at: a wide screen and a small laptop. */
export const SIZES = [
  { width: 1440, height: 900 },
  { width: 1024, height: 700 },
] as const;

/**
 * The page as it is now, in light and dark (the app's own theme switch, data-theme): no serious
 * or critical axe finding in either (every rule in light, the colour rules again in dark), and a screenshot of each at both sizes in test-output/ to
 * look at (`name-1440x900-dark.png`). Leaves the page light at the wide size. The size changes
 * twice, not once per theme: a resize re-lays the page out (grids fit their columns again).
 */
export async function lookAndCheck(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  // Checked at the size the page is at (a test looking at the laptop size starts there).
  const atLaptop = page.viewportSize()?.width === SIZES[1].width;
  const [first, second] = atLaptop ? [SIZES[1], SIZES[0]] : [SIZES[0], SIZES[1]];
  const painted = () => page.evaluate(() => new Promise((done) => requestAnimationFrame(done)));
  const useTheme = async (theme: 'light' | 'dark') => {
    await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
    await painted();
  };
  const shoot = (size: (typeof SIZES)[number], theme: 'light' | 'dark') =>
    page.screenshot({ path: screenshotPath(`${name}-${size.width}x${size.height}-${theme}.png`), fullPage: options.fullPage ?? false });
  const check = async (theme: 'light' | 'dark') => {
    const findings = await seriousA11yFindings(page, theme === 'light' ? 'all' : 'colours');
    expect(findings, `${name} (${theme}):\n${describeFindings(findings)}`).toEqual([]);
  };
  await page.setViewportSize(first);
  await useTheme('light');
  await check('light');
  await shoot(first, 'light');
  await useTheme('dark');
  await check('dark');
  await shoot(first, 'dark');
  await page.setViewportSize(second);
  await painted();
  await shoot(second, 'dark');
  await useTheme('light');
  await shoot(second, 'light');
  await page.setViewportSize(SIZES[0]);
}
