/** The bar between the tree and the details: drag it (or use the arrow keys on it) to give the details more or less room. */
import { el } from './element';

export function splitter(details: HTMLElement): HTMLElement {
  const bar = el('div', 'splitter');
  bar.setAttribute('role', 'separator');
  bar.setAttribute('aria-orientation', 'vertical');
  bar.setAttribute('aria-label', 'Resize the details');
  bar.tabIndex = 0;
  const setWidth = (width: number): void => {
    const layout = details.parentElement?.clientWidth ?? window.innerWidth;
    const clamped = Math.max(220, Math.min(width, layout - 220));
    details.style.flex = `0 0 ${clamped}px`;
  };
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
    const step = event.key === 'ArrowLeft' ? 24 : event.key === 'ArrowRight' ? -24 : 0;
    if (step === 0) return;
    event.preventDefault();
    setWidth(details.getBoundingClientRect().width + step);
  });
  return bar;
}
