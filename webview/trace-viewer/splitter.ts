/**
 * The bar between the tree and the details: drag it, or on the keyboard
 * use the arrow keys (Home and End for the extremes), to give the details
 * more or less room. As a separator it says where it stands: the share of
 * the width the tree has, in percent (aria-valuenow within min and max).
 */
import { el } from './element';
import { t } from './l10n';

/** The narrowest either side may get, in pixels. */
const MIN_SIDE = 220;
const KEY_STEP = 24;

export function splitter(details: HTMLElement): HTMLElement {
  const bar = el('div', 'splitter');
  bar.setAttribute('role', 'separator');
  bar.setAttribute('aria-orientation', 'vertical');
  bar.setAttribute('aria-label', t('Resize the details'));
  bar.setAttribute('aria-controls', details.id);
  bar.tabIndex = 0;
  const layoutWidth = (): number => details.parentElement?.clientWidth || window.innerWidth;
  const announce = (): void => {
    const layout = layoutWidth();
    const percent = (px: number): number => Math.round((100 * px) / layout);
    const detailsWidth = details.getBoundingClientRect().width;
    const min = Math.min(percent(MIN_SIDE), 50);
    const max = Math.max(percent(layout - MIN_SIDE), 50);
    // Rounding never puts the bar past its ends.
    bar.setAttribute('aria-valuemin', String(min));
    bar.setAttribute('aria-valuemax', String(max));
    bar.setAttribute('aria-valuenow', String(Math.max(min, Math.min(max, percent(layout - detailsWidth)))));
  };
  const setWidth = (width: number): void => {
    const clamped = Math.max(MIN_SIDE, Math.min(width, layoutWidth() - MIN_SIDE));
    details.style.flex = `0 0 ${clamped}px`;
    announce();
  };
  // Until the layout exists the bar stands in the middle; the window's size moves it too.
  bar.setAttribute('aria-valuemin', '0');
  bar.setAttribute('aria-valuemax', '100');
  bar.setAttribute('aria-valuenow', '66');
  new ResizeObserver(announce).observe(details);
  bar.addEventListener('pointerdown', (down) => {
    bar.setPointerCapture(down.pointerId);
    const startX = down.clientX;
    const startWidth = details.getBoundingClientRect().width;
    const move = (event: PointerEvent): void => setWidth(startWidth - (event.clientX - startX));
    const up = (): void => {
      bar.removeEventListener('pointermove', move);
      bar.removeEventListener('pointerup', up);
    };
    bar.addEventListener('pointermove', move);
    bar.addEventListener('pointerup', up);
  });
  bar.addEventListener('keydown', (event) => {
    const width = details.getBoundingClientRect().width;
    const wanted: Record<string, number> = { ArrowLeft: width + KEY_STEP, ArrowRight: width - KEY_STEP, Home: Infinity, End: 0 };
    if (!(event.key in wanted)) return;
    event.preventDefault();
    setWidth(wanted[event.key]!);
  });
  return bar;
}
