import type { BrandColours } from '../documents/colours';

/**
 * The portal's one style sheet, served by us at /portal/portal.css (the Content-Security-Policy
 * allows styles from this server only). Phone first; light and dark follow the device; every
 * text colour meets WCAG AA contrast on its background, and focus is always visible.
 */
export const PORTAL_CSS = `
:root { color-scheme: light dark; --bg: #f6f7f9; --card: #ffffff; --text: #1b1f24; --muted: #4a525c; --line: #c9ced6; --accent: #0b5cad; --link: #0b5cad; --accent-text: #ffffff; --late: #a3200f; --ok-bg: #e5f3ea; --ok-text: #134a27; --err: #a3200f; --focus: #c2410c; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #111418; --card: #1b2027; --text: #eef1f4; --muted: #b8c0ca; --line: #3a424d; --accent: #7db7f5; --link: #7db7f5; --accent-text: #0b1420; --late: #ff9b8a; --ok-bg: #163323; --ok-text: #bfe8cd; --err: #ff9b8a; --focus: #fdba74; }
}
* { box-sizing: border-box; }
html { font-size: 100%; }
body { margin: 0; background: var(--bg); color: var(--text); font-family: system-ui, -apple-system, "Segoe UI", Roboto, Arial, sans-serif; line-height: 1.5; }
main, .brand, footer { max-width: 46rem; margin: 0 auto; padding: 0 1rem; }
.brand { display: flex; align-items: center; gap: 0.75rem; padding-top: 1rem; padding-bottom: 0.5rem; border-bottom: 0.25rem solid var(--accent); }
.logo { max-height: 3rem; max-width: 10rem; }
.company { font-weight: 600; font-size: 1.125rem; margin: 0; }
h1 { font-size: 1.5rem; line-height: 1.25; margin: 1rem 0 0.5rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 0.5rem; }
a { color: var(--link); text-underline-offset: 0.15em; }
a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, textarea:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: var(--card); padding: 0.5rem; }
.skip:focus { left: 0.5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.summary { display: flex; flex-wrap: wrap; gap: 0.5rem 1.5rem; background: var(--card); border: 1px solid var(--line); border-radius: 0.5rem; padding: 0.75rem 1rem; margin: 0.5rem 0; }
.summary div { min-width: 8rem; }
.summary dt { color: var(--muted); font-size: 0.875rem; }
.summary dd { margin: 0; font-size: 1.25rem; font-weight: 600; }
fieldset { border: 0; padding: 0; margin: 0; min-width: 0; }
legend { font-weight: 600; padding: 0; margin-bottom: 0.25rem; }
.invoices { list-style: none; padding: 0; margin: 0.5rem 0; display: grid; gap: 0.5rem; }
.invoice { background: var(--card); border: 1px solid var(--line); border-radius: 0.5rem; padding: 0.75rem 1rem; display: grid; grid-template-columns: 1fr auto; gap: 0.25rem 1rem; }
.invoice .pick { display: flex; align-items: center; gap: 0.5rem; font-weight: 600; min-height: 2.75rem; }
.invoice .pick input { width: 1.5rem; height: 1.5rem; margin: 0; accent-color: var(--link); }
.invoice .pick label { cursor: pointer; }
.invoice .amount { margin: 0; font-weight: 600; font-size: 1.125rem; align-self: center; }
.invoice .meta { grid-column: 1 / -1; margin: 0; color: var(--muted); font-size: 0.9375rem; }
.invoice .meta a { display: inline-block; padding: 0.25rem 0; }
.late { color: var(--late); font-weight: 600; }
.reference { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; color: var(--text); white-space: nowrap; }
.tag { display: inline-block; border: 1px solid var(--line); border-radius: 1rem; padding: 0 0.5rem; color: var(--text); }
.actions { display: flex; flex-direction: column; gap: 0.5rem; margin: 1rem 0; }
button, .button { font: inherit; font-weight: 600; min-height: 2.75rem; padding: 0.5rem 1rem; border-radius: 0.5rem; border: 2px solid var(--accent); background: var(--accent); color: var(--accent-text); cursor: pointer; text-align: center; text-decoration: none; display: inline-block; }
.button.secondary { background: transparent; color: var(--accent); }
.field { margin: 1rem 0; display: flex; flex-direction: column; gap: 0.25rem; }
.field label { font-weight: 600; }
input[type=text], input[type=email], input[type=tel], input[type=date], select, textarea { font: inherit; color: var(--text); background: var(--card); border: 1px solid var(--muted); border-radius: 0.375rem; padding: 0.5rem; min-height: 2.75rem; width: 100%; }
input[type=file] { font: inherit; color: var(--text); }
.hint { margin: 0; color: var(--muted); font-size: 0.9375rem; }
.error { margin: 0; color: var(--err); font-weight: 600; }
.error-summary { border: 2px solid var(--err); border-radius: 0.5rem; padding: 0.5rem 1rem; background: var(--card); }
.error-summary h2 { margin-top: 0.25rem; }
.notice { background: var(--ok-bg); color: var(--ok-text); border-radius: 0.5rem; padding: 0.75rem 1rem; font-weight: 600; }
.instructions { background: var(--card); border: 1px solid var(--line); border-radius: 0.5rem; padding: 0.75rem 1rem; }
footer { color: var(--muted); font-size: 0.875rem; padding-bottom: 2rem; }
@media (min-width: 48rem) {
  .actions { flex-direction: row; flex-wrap: wrap; }
  .invoices { gap: 0.75rem; }
}
`;

/**
 * The company's brand colours over the defaults (served behind the link, /portal/{token}/brand.css:
 * the Content-Security-Policy allows no inline style). Primary: buttons and the header's rule;
 * accent: links and ticks. Each in the shade that keeps 4.5:1 in light and in dark mode
 * (core/documents/colours.ts); empty when the company chose none.
 */
export function brandCss(brand: BrandColours): string {
  const vars = (mode: 'light' | 'dark') =>
    [brand.primary && `--accent: ${brand.primary[mode].colour};`, brand.accent && `--link: ${brand.accent[mode].colour};`].filter(Boolean).join(' ');
  const light = vars('light');
  if (!light) return '';
  return `:root { ${light} }\n@media (prefers-color-scheme: dark) {\n  :root { ${vars('dark')} }\n}\n`;
}
