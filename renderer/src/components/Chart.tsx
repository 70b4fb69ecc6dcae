import type { ECharts, EChartsCoreOption } from 'echarts/core';
import { useEffect, useRef, useState } from 'react';

/**
 * ECharts (about half a megabyte) loads on a chart's first draw, not with its page: a page asks
 * for its data and shows its figures while the library is still being fetched and parsed.
 */
const loadECharts = () => import('./echarts');

/** A colour token of the current theme (styles.css), for chart options. */
export function cssVar(name: string): string {
  return getComputedStyle(document.documentElement).getPropertyValue(name).trim();
}

export type ChartOption = EChartsCoreOption;

/**
 * An ECharts canvas that resizes with its box and repaints when the theme changes (the option is
 * built again, so colours read from the tokens follow). A click reports the category index.
 * The canvas is an image to assistive technology: the label says what it shows, and each page
 * puts the same figures in a table next to it.
 */
export function Chart({ option, label, onClick, testId, className = 'chart' }: { option: () => ChartOption; label: string; onClick?: (index: number, series: number) => void; testId?: string; className?: string }) {
  const host = useRef<HTMLDivElement>(null);
  const chart = useRef<ECharts | null>(null);
  const [ready, setReady] = useState(false);
  const onClickRef = useRef(onClick);
  onClickRef.current = onClick;

  useEffect(() => {
    let disposed = false;
    let dispose = () => {};
    void loadECharts().then(({ echarts }) => {
      if (disposed) return;
      dispose = mount(echarts);
      setReady(true);
    });
    return () => {
      disposed = true;
      dispose();
    };
  }, []);

  function mount(echarts: Awaited<ReturnType<typeof loadECharts>>['echarts']): () => void {
    const el = host.current!;
    const instance = echarts.init(el, undefined, { renderer: 'canvas' });
    chart.current = instance;
    instance.on('click', (params) => onClickRef.current?.(params.dataIndex as number, (params.seriesIndex as number) ?? 0));
    // A click anywhere in a category's column, not only on its bar, picks it.
    instance.getZr().on('click', (event) => {
      if (event.target) return;
      const point = [event.offsetX, event.offsetY];
      if (!instance.containPixel('grid', point)) return;
      const [index] = instance.convertFromPixel('grid', point) as number[];
      if (Number.isInteger(index) && index >= 0) onClickRef.current?.(index, 0);
    });
    const resize = new ResizeObserver(() => instance.resize());
    resize.observe(el);
    return () => {
      resize.disconnect();
      instance.dispose();
      chart.current = null;
    };
  }

  useEffect(() => {
    if (!ready) return;
    const paint = () => chart.current?.setOption(option(), { notMerge: true });
    paint();
    const themeWatch = new MutationObserver(paint);
    themeWatch.observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] });
    return () => themeWatch.disconnect();
  }, [option, ready]);

  return <div ref={host} className={className} data-testid={testId} role="img" aria-label={label} />;
}
