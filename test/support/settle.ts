import type { Page } from 'playwright-core';

/**
 * Resolves once the boxes of every element matching `selector` have stayed the same for `frames`
 * animation frames in a row: a resize, a panel opening or a grid fitting its columns has finished.
 * A condition, not a sleep: it ends as soon as the layout holds still, and fails naming what kept
 * moving.
 */
export async function layoutSettled(page: Page, selector: string, frames = 5, timeoutMs = 10_000): Promise<void> {
  await page.evaluate(
    ({ selector, frames, timeoutMs }) =>
      new Promise<void>((resolve, reject) => {
        const started = performance.now();
        let last = '';
        let same = 0;
        const tick = () => {
          const boxes = JSON.stringify(
            [...document.querySelectorAll(selector)].map((el) => {
              const r = el.getBoundingClientRect();
              return [r.x, r.y, r.width, r.height];
            }),
          );
          same = boxes === last ? same + 1 : 0;
          last = boxes;
          if (same >= frames) return resolve();
          if (performance.now() - started > timeoutMs) return reject(new Error(`the layout of ${selector} kept moving for ${timeoutMs} ms`));
          requestAnimationFrame(tick);
        };
        requestAnimationFrame(tick);
      }),
    { selector, frames, timeoutMs },
  );
}
